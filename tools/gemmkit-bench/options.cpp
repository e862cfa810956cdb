/*! \file
    \brief Command line of gemmkit-bench: subcommand, sizes (ranges and lists), filters, timing knobs.
*/
#include "options.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gemmkit::bench {

namespace {

constexpr std::size_t kMaxListLength = 100000;  // a typo like 1:1000000:1 should not run for a week

std::string trim(std::string_view s) {
  auto const first = s.find_first_not_of(" \t\r");
  auto const last = s.find_last_not_of(" \t\r");
  return first == std::string_view::npos ? std::string() : std::string(s.substr(first, last - first + 1));
}

bool parse_int(std::string_view text, std::int64_t* out) {
  std::string const t = trim(text);
  auto const [end, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
  return ec == std::errc() && end == t.data() + t.size() && !t.empty();
}

bool parse_double(std::string const& text, double* out) {
  try {
    std::size_t used = 0;
    *out = std::stod(text, &used);
    return used == text.size();
  } catch (std::exception const&) {
    return false;
  }
}

bool parse_op(char c, gk_op* op) {
  switch (c) {
    case 'n': case 'N': *op = GK_OP_N; return true;
    case 't': case 'T': *op = GK_OP_T; return true;
    case 'c': case 'C': *op = GK_OP_C; return true;
    default: return false;
  }
}

}  // namespace

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> items;
  std::stringstream in{std::string(text)};
  for (std::string item; std::getline(in, item, ',');) items.push_back(trim(item));
  return items;
}

std::string parse_size_list(std::string_view text, std::vector<std::int64_t>* out) {
  out->clear();
  std::stringstream items{std::string(text)};
  std::string item;
  while (std::getline(items, item, ',')) {
    std::vector<std::int64_t> parts;
    std::stringstream fields(item);
    std::string field;
    while (std::getline(fields, field, ':')) {
      std::int64_t v = 0;
      if (!parse_int(field, &v)) return "'" + item + "' is not a size, a list or first:last:step";
      parts.push_back(v);
    }
    if (parts.size() == 1) {
      out->push_back(parts[0]);
    } else if (parts.size() == 3) {
      std::int64_t const first = parts[0], last = parts[1], step = parts[2];
      if (step <= 0 || last < first) return "range '" + item + "' needs first <= last and step > 0";
      for (std::int64_t v = first; v <= last; v += step) {
        out->push_back(v);
        if (out->size() > kMaxListLength) return "range '" + item + "' has too many values";
      }
    } else {
      return "'" + item + "' is not a size, a list or first:last:step";
    }
  }
  if (out->empty()) return "empty size list";
  for (std::int64_t v : *out) {
    if (v <= 0) return "sizes must be positive (got " + std::to_string(v) + ")";
  }
  return {};
}

std::string parse_trans_list(std::string_view text, std::vector<TransPair>* out) {
  out->clear();
  for (std::string const& item : split_list(text)) {
    TransPair t;
    if (item.size() != 2 || !parse_op(item[0], &t.first) || !parse_op(item[1], &t.second)) {
      return "'" + item + "' is not a transpose pair (nn, nt, tn, tt)";
    }
    out->push_back(t);
  }
  if (out->empty()) return "empty --trans list";
  return {};
}

std::string parse_count_list(std::string_view text, std::vector<std::int64_t>* out) {
  out->clear();
  for (std::string const& item : split_list(text)) {
    std::int64_t v = 0;
    if (!parse_int(item, &v) || v < 0) return "'" + item + "' is not an integer >= 0";
    out->push_back(v);
  }
  if (out->empty()) return "empty list";
  return {};
}

std::string parse_thread_list(std::string_view text, std::vector<int>* out) {
  out->clear();
  for (std::string const& item : split_list(text)) {
    std::int64_t t = 0;
    if (item == "all") out->push_back(0);
    else if (parse_int(item, &t) && t >= 1 && t <= 4096) out->push_back(int(t));
    else return "'" + item + "' is not a thread count (a positive integer or 'all')";
  }
  if (out->empty()) return "empty thread list";
  return {};
}

std::string parse_bytes(std::string_view text, std::int64_t* out) {
  std::string t = trim(text);
  std::int64_t scale = 1;
  if (!t.empty()) {
    switch (t.back()) {
      case 'K': case 'k': scale = std::int64_t(1) << 10; break;
      case 'M': case 'm': scale = std::int64_t(1) << 20; break;
      case 'G': case 'g': scale = std::int64_t(1) << 30; break;
      default: break;
    }
    if (scale != 1) t.pop_back();
  }
  std::int64_t v = 0;
  if (!parse_int(t, &v) || v <= 0 || v > (std::int64_t(1) << 50) / scale) {
    std::string const given(text);
    return "'" + given + "' is not a byte count (e.g. 1073741824, 64M, 1G)";
  }
  *out = v * scale;
  return {};
}

std::string parse_shape_list(std::string_view text, std::vector<ShapeSpec>* out) {
  out->clear();
  // Shapes are separated by ';' or, when written as MxNxK, by ',' as well.
  std::string all(text);
  bool const x_form = all.find_first_of("xX") != std::string::npos;
  for (char& c : all) {
    if (c == ';' || (x_form && c == ',')) c = '\n';
    else if (c == 'x' || c == 'X') c = ',';
  }
  std::stringstream items(all);
  std::string item;
  while (std::getline(items, item)) {
    std::string const shape = trim(item);
    if (shape.empty()) continue;
    std::vector<std::int64_t> dims;
    if (!parse_size_list(shape, &dims).empty() || dims.size() != 3 || shape.find(':') != std::string::npos) {
      return "'" + shape + "' is not a shape m,n,k (or MxNxK)";
    }
    out->push_back({dims[0], dims[1], dims[2], std::nullopt});
  }
  if (out->empty()) return "empty shape list";
  return {};
}

std::string read_shapes_file(std::string const& path, std::vector<ShapeSpec>* out) {
  std::ifstream in(path);
  if (!in) return "cannot read shapes file '" + path + "'";
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (auto const hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::stringstream fields(line);
    std::vector<std::string> f;
    for (std::string w; fields >> w;) f.push_back(w);
    if (f.empty()) continue;
    auto bad = [&](std::string const& why) { return path + ":" + std::to_string(number) + ": " + why; };
    if (f.size() != 3 && f.size() != 5) return bad("expected 'm n k [transA transB]'");
    ShapeSpec s;
    if (!parse_int(f[0], &s.m) || !parse_int(f[1], &s.n) || !parse_int(f[2], &s.k) || s.m <= 0 || s.n <= 0 ||
        s.k <= 0) {
      return bad("m, n, k must be positive integers");
    }
    if (f.size() == 5) {
      TransPair t;
      if (f[3].size() != 1 || f[4].size() != 1 || !parse_op(f[3][0], &t.first) || !parse_op(f[4][0], &t.second)) {
        return bad("transA and transB must be N, T or C");
      }
      s.trans = t;
    }
    out->push_back(s);
  }
  if (out->empty()) return "shapes file '" + path + "' has no shapes";
  return {};
}

std::string read_shapes_argument(std::string const& argument, std::vector<ShapeSpec>* out) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(argument, ec)) return read_shapes_file(argument, out);
  return parse_shape_list(argument, out);
}

std::string shapes_from_options(Options const& o, std::vector<ShapeSpec>* out) {
  out->clear();
  if (!o.shapes_file.empty()) {
    if (!o.m.empty() || !o.n.empty() || !o.k.empty()) return "give either --shapes or --m/--n/--k, not both";
    return read_shapes_file(o.shapes_file, out);
  }
  if (o.m.empty()) {
    if (!o.n.empty() || !o.k.empty()) return "--n and --k need --m";
    return {};
  }
  for (std::int64_t m : o.m) {
    std::vector<std::int64_t> const ns = o.n.empty() ? std::vector<std::int64_t>{m} : o.n;
    std::vector<std::int64_t> const ks = o.k.empty() ? std::vector<std::int64_t>{m} : o.k;
    for (std::int64_t n : ns) {
      for (std::int64_t k : ks) out->push_back({m, n, k, std::nullopt});
    }
  }
  return {};
}

std::string parse_options(int argc, char** argv, Options* o) {
  int i = 1;
  if (i < argc && argv[i][0] != '-') o->command = argv[i++];
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (auto const eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
      has_value = true;
    }
    auto need = [&](std::string* v) -> std::string {
      if (has_value) {
        *v = value;
        return {};
      }
      if (i + 1 >= argc) return arg + " needs a value";
      *v = argv[++i];
      return {};
    };
    auto need_int = [&](int* v) -> std::string {
      std::string text;
      if (std::string e = need(&text); !e.empty()) return e;
      std::int64_t x = 0;
      if (!parse_int(text, &x) || x < 0 || x > 1000000) return arg + " needs a non-negative integer";
      *v = int(x);
      return {};
    };
    auto need_double = [&](double* v) -> std::string {
      std::string text;
      if (std::string e = need(&text); !e.empty()) return e;
      if (!parse_double(text, v)) return arg + " needs a number";
      return {};
    };
    std::string e, text;
    if (arg == "-h" || arg == "--help") o->help = true;
    else if (arg == "--m" || arg == "--n" || arg == "--k") {
      auto* list = arg == "--m" ? &o->m : (arg == "--n" ? &o->n : &o->k);
      if ((e = need(&text)).empty()) e = parse_size_list(text, list);
      if (!e.empty()) e = arg + ": " + e;
    } else if (arg == "--shapes") e = need(&o->shapes_file);
    else if (arg == "--trans") {
      if ((e = need(&text)).empty()) e = parse_trans_list(text, &o->trans);
    } else if (arg == "--dtype") {
      if ((e = need(&text)).empty()) {
        if (text == "f64" || text == "d" || text == "double") o->dtypes = {Dtype::kF64};
        else if (text == "f32" || text == "s" || text == "float") o->dtypes = {Dtype::kF32};
        else if (text == "both") o->dtypes = {Dtype::kF64, Dtype::kF32};
        else e = "--dtype must be f64, f32 or both";
      }
    } else if (arg == "--variants") e = need(&o->variants);
    else if (arg == "--peer") {
      if ((e = need(&o->peer)).empty() && o->peer != "auto" && o->peer != "cublas" && o->peer != "openblas" &&
          o->peer != "none") {
        e = "--peer must be cublas, openblas, none or auto";
      }
    } else if (arg == "--verify") o->verify = true;
    else if (arg == "--no-verify") o->verify = false;
    else if (arg == "--warmup") e = need_int(&o->warmup);
    else if (arg == "--reps") {
      if ((e = need_int(&o->reps)).empty() && o->reps < 1) e = "--reps must be at least 1";
    } else if (arg == "--calls") {
      if ((e = need_int(&o->calls)).empty() && o->calls < 1) e = "--calls must be at least 1";
    } else if (arg == "--energy-seconds") {
      if ((e = need_double(&o->energy_seconds)).empty() && !(o->energy_seconds >= 0)) {
        e = "--energy-seconds must be 0 or more";
      }
    } else if (arg == "--target-ms") {
      if ((e = need_double(&o->target_ms)).empty() && !(o->target_ms > 0)) e = "--target-ms must be positive";
    } else if (arg == "--json") e = need(&o->json_file);
    else if (arg == "--cpu") o->force_cpu = true;
    else if (arg == "--tune") o->tune = true;
    else if (arg == "--plan") o->plan = true;
    else if (arg == "--budget") {
      if ((e = need(&text)).empty()) e = parse_bytes(text, &o->budget);
    }
    else if (arg == "--tune-out") e = need(&o->tune_out);
    else if (arg == "--machine-out") e = need(&o->machine_out);
    else if (arg == "--machine") e = need(&o->machine_file);
    else if (arg == "--measured") e = need(&o->measured_file);
    else if (arg == "--kernels") e = need(&o->kernels_file);
    else if (arg == "--gpu") o->force_gpu = true;
    else if (arg == "--grouped") o->grouped = true;
    else if (arg == "--group-mix") {
      if ((e = need(&text)).empty()) e = parse_size_list(text, &o->group_mix);
      if (!e.empty()) e = arg + ": " + e;
    }
    else if (arg == "--suite") e = need(&o->suite);
    else if (arg == "--alpha") e = need_double(&o->alpha);
    else if (arg == "--beta") {
      double b = 0;
      if ((e = need_double(&b)).empty()) o->beta = b;
    } else if (arg == "--peak-gflops") {
      double p = 0;
      if ((e = need_double(&p)).empty()) {
        if (p > 0) o->peak_gflops = p;
        else e = "--peak-gflops must be positive";
      }
    } else if (arg == "--threads") {
      if ((e = need(&text)).empty()) e = parse_thread_list(text, &o->threads);
      if (!e.empty()) e = "--threads: " + e;
    } else if (arg == "--bytes") {
      if ((e = need(&text)).empty()) e = parse_bytes(text, &o->bytes);
      if (!e.empty()) e = "--bytes: " + e;
    } else if (arg == "--peers") e = need(&o->peers);
    else if (arg == "--max-pass-ms") {
      if ((e = need_double(&o->max_pass_ms)).empty() && !(o->max_pass_ms > 0)) e = "--max-pass-ms must be positive";
    } else if (arg == "--no-graph") o->graph = false;
    else if (arg == "--device") e = need_int(&o->device);
    else if (arg == "-v" || arg == "--verbose") ++o->verbosity;
    else e = "unknown option '" + arg + "'";
    if (!e.empty()) return e;
  }
  return {};
}

}  // namespace gemmkit::bench
