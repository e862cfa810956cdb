"""Adds the energy fields to a machine description from the energy rows of the micro-benchmark run
that measured them, the mapping describe_machine.cpp applies on the device (for descriptions
written before it knew the fields):
  python3 bench/describe_energy.py MICRO.jsonl MACHINE.json OUT.json
"""
import json
import sys

# row case -> (field, factor from the row's value)
ENERGY_ROWS = {
    'energy_fp64_mma_m16n8k16': ('dmma_energy_j_per_flop', 1e-12),
    'energy_l2_read': ('l2_energy_j_per_byte', 1e-12),
    'energy_smem_read': ('smem_energy_j_per_byte', 1e-12),
}


def main(micro_path, machine_path, out_path):
    machine = json.load(open(machine_path))
    for line in open(micro_path):
        if not line.strip().startswith('{'):
            continue
        row = json.loads(line)
        case = row.get('case')
        if case not in ENERGY_ROWS or row.get('status', 'ok') != 'ok' or row.get('value') is None:
            continue
        field, factor = ENERGY_ROWS[case]
        machine[field] = row['value'] * factor
        if case == 'energy_fp64_mma_m16n8k16':
            machine['power_limit_w'] = row['power_limit_watts']
            machine['idle_power_w'] = row['idle_watts']
    machine['source'] = machine.get('source', '') + '; energies from ' + micro_path.split('/')[-1]
    json.dump(machine, open(out_path, 'w'), indent=2)
    open(out_path, 'a').write('\n')


if __name__ == '__main__':
    main(*sys.argv[1:4])
