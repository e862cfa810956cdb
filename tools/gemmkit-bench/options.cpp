/*! \file
    \brief The parsers of gemmkit-bench's list values, and shapes files.
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
    if (f.size() != 3 && f.size() != 5 && f.size() != 6) {
      return bad("expected 'm n k [transA transB [tight|aligned|odd]]'");
    }
    ShapeSpec s;
    if (!parse_int(f[0], &s.m) || !parse_int(f[1], &s.n) || !parse_int(f[2], &s.k) || s.m <= 0 || s.n <= 0 ||
        s.k <= 0) {
      return bad("m, n, k must be positive integers");
    }
    if (f.size() >= 5) {
      TransPair t;
      if (f[3].size() != 1 || f[4].size() != 1 || !parse_op(f[3][0], &t.first) || !parse_op(f[4][0], &t.second)) {
        return bad("transA and transB must be N, T or C");
      }
      s.trans = t;
    }
    if (f.size() == 6) {
      if (f[5] == "tight") s.leading = LeadingForm::kTight;
      else if (f[5] == "aligned") s.leading = LeadingForm::kAligned;
      else if (f[5] == "odd") s.leading = LeadingForm::kOdd;
      else return bad("the leading-dimension form must be tight, aligned or odd");
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

std::string read_builtin_shapes(std::string const& name, std::string const& shapes_dir, std::vector<ShapeSpec>* out) {
  namespace fs = std::filesystem;
  std::vector<fs::path> folders;
  if (!shapes_dir.empty()) {
    folders.emplace_back(shapes_dir);
  } else {
    folders.emplace_back(fs::path(GEMMKIT_BENCH_SOURCE_DIR) / "bench" / "shapes");
    std::error_code ec;
    fs::path const self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) folders.push_back(self.parent_path().parent_path() / GEMMKIT_BENCH_INSTALLED_SHAPES);
  }
  std::string tried;
  for (fs::path const& folder : folders) {
    fs::path const file = folder / name;
    std::error_code ec;
    if (fs::is_regular_file(file, ec)) {
      out->clear();
      return read_shapes_file(file.string(), out);
    }
    tried += (tried.empty() ? "" : ", ") + folder.string();
  }
  return "the built-in suite's shapes file " + name + " is not in " + tried +
         (shapes_dir.empty() ? " (--shapes-dir DIR names the folder: bench/shapes in gemmkit's source)" : "");
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

}  // namespace gemmkit::bench
