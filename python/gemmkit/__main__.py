"""``python -m gemmkit``: the build, its devices and its registered variants."""

import gemmkit

description = gemmkit.info()
print(f"gemmkit {description['version']}, GPU {'usable' if description['gpu_available'] else 'not usable'}, "
      f"{len(description['variants'])} registered variants")
for variant_id, dtype, backend, summary in description["variants"]:
    print(f"  {variant_id:52} {dtype:8} {backend:4} {summary}")
