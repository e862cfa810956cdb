/*! \file
    \brief Runs one program against the BLAS drop-in and checks the trace it wrote (GEMMKIT_BLAS_TRACE).

    The drop-in is loaded the ways a user loads it: `--preload LIB` (LD_PRELOAD) or `--library-path DIR`
    (the folder whose libblas.so.3 is the drop-in); both are set for the program alone, so that the
    shells and tools of the test do not load it too. The trace file is removed before the run (the
    library may append), named in GEMMKIT_BLAS_TRACE, then read: every line must be one JSON object
    with the contract's keys, and the --expect/--forbid/--all filters must hold.

      gemmkit_blas_traced_run [options] -- PROGRAM [ARGS...]
        --trace FILE          where the program's trace goes (needed by the filters)
        --preload LIB         LD_PRELOAD=LIB for the program
        --library-path DIR    DIR put first in the program's LD_LIBRARY_PATH
        --stdin FILE          the program's standard input
        --env NAME=VALUE      one more variable for the program (repeatable)
        --expect FILTER[@N]   at least N rows (default 1) match FILTER
        --forbid FILTER       no row matches FILTER
        --all FILTER          every row matches FILTER (an absent or empty trace passes)
        --require-gpu         exit 77 (CTest: skipped) unless `nvidia-smi -L` succeeds
        --skip REASON         exit 77 at once with REASON (a configuration that cannot run the test)
      FILTER: KEY=VALUE[,KEY=VALUE...]; VALUE is compared with the JSON value's text (strings unquoted);
      KEY!=VALUE matches a different value, KEY~TEXT a value that contains TEXT.

    Exit status: the program's when it failed or skipped (77), 1 when the trace does not hold, else 0.
*/
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int kSkip = 77;

/// One trace row: key -> the value's text (strings unescaped and unquoted).
using Row = std::map<std::string, std::string>;

/// A flat JSON object parser: enough for one trace line; nested values are kept as their raw text.
class LineParser {
 public:
  explicit LineParser(std::string const& text) : text_(text) {}

  std::optional<Row> parse_object(std::string* error) {
    Row row;
    skip_space();
    if (!eat('{')) return fail(error, "no '{' at the start");
    skip_space();
    if (eat('}')) return finish(row, error);
    while (true) {
      skip_space();
      std::string key;
      if (!parse_string(&key)) return fail(error, "a key is not a string");
      skip_space();
      if (!eat(':')) return fail(error, "no ':' after key '" + key + "'");
      skip_space();
      std::string value;
      if (!parse_value(&value)) return fail(error, "the value of '" + key + "' is not JSON");
      if (row.count(key) != 0) return fail(error, "key '" + key + "' twice");
      row[key] = value;
      skip_space();
      if (eat(',')) continue;
      if (eat('}')) return finish(row, error);
      return fail(error, "no ',' or '}' after the value of '" + key + "'");
    }
  }

 private:
  std::optional<Row> finish(Row const& row, std::string* error) {
    skip_space();
    if (pos_ != text_.size()) return fail(error, "text after the object");
    return row;
  }
  std::optional<Row> fail(std::string* error, std::string const& why) {
    *error = why + " (at column " + std::to_string(pos_ + 1) + ")";
    return std::nullopt;
  }
  void skip_space() {
    while (pos_ < text_.size() && std::strchr(" \t\r\n", text_[pos_]) != nullptr) ++pos_;
  }
  bool eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool parse_string(std::string* out) {
    if (!eat('"')) return false;
    while (pos_ < text_.size()) {
      char const c = text_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return false;
      char const e = text_[pos_++];
      switch (e) {
        case '"': case '\\': case '/': out->push_back(e); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u':
          if (pos_ + 4 > text_.size()) return false;
          out->append("\\u").append(text_, pos_, 4);  // kept escaped: the filters compare ASCII
          pos_ += 4;
          break;
        default: return false;
      }
    }
    return false;
  }
  bool parse_number(std::string* out) {
    std::size_t const start = pos_;
    eat('-');
    while (pos_ < text_.size() && std::strchr("0123456789.eE+-", text_[pos_]) != nullptr) ++pos_;
    if (pos_ == start) return false;
    out->assign(text_, start, pos_ - start);
    char* end = nullptr;
    std::strtod(out->c_str(), &end);
    return end != nullptr && *end == '\0';
  }
  bool parse_value(std::string* out) {
    if (pos_ >= text_.size()) return false;
    char const c = text_[pos_];
    if (c == '"') return parse_string(out);
    for (char const* word : {"true", "false", "null"}) {
      if (text_.compare(pos_, std::strlen(word), word) == 0) {
        *out = word;
        pos_ += std::strlen(word);
        return true;
      }
    }
    if (c == '{' || c == '[') return skip_nested(out);
    return parse_number(out);
  }
  bool skip_nested(std::string* out) {
    std::size_t const start = pos_;
    int depth = 0;
    while (pos_ < text_.size()) {
      char const c = text_[pos_];
      if (c == '"') {
        std::string ignored;
        if (!parse_string(&ignored)) return false;
        continue;
      }
      ++pos_;
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (--depth == 0) {
          out->assign(text_, start, pos_ - start);
          return true;
        }
      }
    }
    return false;
  }

  std::string const& text_;
  std::size_t pos_ = 0;
};

/// One condition of a filter: key=value (equal), key!=value (different) or key~text (contains).
struct Condition {
  enum class Op { kEqual, kDifferent, kContains };
  std::string key;
  std::string value;
  Op op = Op::kEqual;

  bool holds(std::string const& actual) const {
    switch (op) {
      case Op::kEqual: return actual == value;
      case Op::kDifferent: return actual != value;
      case Op::kContains: return actual.find(value) != std::string::npos;
    }
    return false;
  }
};

struct Filter {
  std::string text;
  std::vector<Condition> conditions;
  long min_rows = 1;

  bool matches(Row const& row) const {
    for (Condition const& c : conditions) {
      auto const it = row.find(c.key);
      if (it == row.end() || !c.holds(it->second)) return false;
    }
    return true;
  }
};

std::optional<Filter> parse_filter(std::string text, bool with_count) {
  Filter filter;
  if (with_count) {
    std::size_t const at = text.rfind('@');
    if (at != std::string::npos) {
      char* end = nullptr;
      filter.min_rows = std::strtol(text.c_str() + at + 1, &end, 10);
      if (end == nullptr || *end != '\0' || filter.min_rows < 1) return std::nullopt;
      text.resize(at);
    }
  }
  filter.text = text;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t const comma = std::min(text.find(',', start), text.size());
    std::string const item = text.substr(start, comma - start);
    std::size_t op = item.find_first_of("=~");
    if (op == std::string::npos || op == 0) return std::nullopt;
    Condition condition;
    condition.value = item.substr(op + 1);
    if (item[op] == '~') {
      condition.op = Condition::Op::kContains;
    } else if (item[op - 1] == '!') {
      condition.op = Condition::Op::kDifferent;
      --op;
      if (op == 0) return std::nullopt;
    }
    condition.key = item.substr(0, op);
    filter.conditions.push_back(condition);
    start = comma + 1;
  }
  return filter;
}

[[noreturn]] void usage(char const* why) {
  std::fprintf(stderr, "traced_run: %s\nusage: traced_run [--trace FILE] [--preload LIB] [--library-path DIR] "
                       "[--stdin FILE] [--env N=V] [--expect F[@N]] [--forbid F] [--all F] [--require-gpu] "
                       "[--skip REASON] -- PROGRAM [ARGS...]\n", why);
  std::exit(2);
}

/// Runs argv with extra environment and stdin; returns its exit status (128+signal when killed).
int run_program(std::vector<char*> const& argv, std::vector<std::pair<std::string, std::string>> const& env,
                std::string const& stdin_path) {
  std::fflush(nullptr);
  pid_t const pid = fork();
  if (pid < 0) {
    std::perror("traced_run: fork");
    return 1;
  }
  if (pid == 0) {
    for (auto const& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    if (!stdin_path.empty()) {
      int const fd = open(stdin_path.c_str(), O_RDONLY);
      if (fd < 0 || dup2(fd, 0) < 0) {
        std::fprintf(stderr, "traced_run: cannot open %s: %s\n", stdin_path.c_str(), std::strerror(errno));
        _exit(126);
      }
      close(fd);
    }
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "traced_run: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      std::perror("traced_run: waitpid");
      return 1;
    }
  }
  if (WIFSIGNALED(status)) {
    std::fprintf(stderr, "traced_run: %s was killed by signal %d (%s)\n", argv[0], WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    return 128 + WTERMSIG(status);
  }
  return WEXITSTATUS(status);
}

bool gpu_present() {
  // `nvidia-smi -L` lists the GPUs and fails without a driver or a device (as CI's machines do).
  return std::system("nvidia-smi -L >/dev/null 2>&1") == 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string trace_path;
  std::string stdin_path;
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<Filter> expects;
  std::vector<Filter> forbids;
  std::vector<Filter> alls;
  bool require_gpu = false;
  int i = 1;
  auto const value = [&](char const* option) -> std::string {
    if (i + 1 >= argc) usage((std::string(option) + " needs a value").c_str());
    return argv[++i];
  };
  for (; i < argc; ++i) {
    std::string const arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "--trace") {
      trace_path = value("--trace");
    } else if (arg == "--preload") {
      env.emplace_back("LD_PRELOAD", value("--preload"));
    } else if (arg == "--library-path") {
      std::string dir = value("--library-path");
      if (char const* old = std::getenv("LD_LIBRARY_PATH"); old != nullptr && *old != '\0') dir += ":" + std::string(old);
      env.emplace_back("LD_LIBRARY_PATH", dir);
    } else if (arg == "--stdin") {
      stdin_path = value("--stdin");
    } else if (arg == "--env") {
      std::string const item = value("--env");
      std::size_t const eq = item.find('=');
      if (eq == std::string::npos || eq == 0) usage("--env takes NAME=VALUE");
      env.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    } else if (arg == "--expect" || arg == "--forbid" || arg == "--all") {
      std::optional<Filter> filter = parse_filter(value(arg.c_str()), arg == "--expect");
      if (!filter) usage(("bad filter after " + arg).c_str());
      (arg == "--expect" ? expects : arg == "--forbid" ? forbids : alls).push_back(*filter);
    } else if (arg == "--require-gpu") {
      require_gpu = true;
    } else if (arg == "--skip") {
      std::printf("skipped: %s\n", value("--skip").c_str());
      return kSkip;
    } else {
      usage(("unknown option " + arg).c_str());
    }
  }
  if (i >= argc) usage("no program after --");
  if (trace_path.empty() && !(expects.empty() && forbids.empty() && alls.empty())) usage("filters need --trace");
  if (require_gpu && !gpu_present()) {
    std::printf("skipped: no GPU (nvidia-smi -L failed)\n");
    return kSkip;
  }

  if (!trace_path.empty()) {
    if (std::remove(trace_path.c_str()) != 0 && errno != ENOENT) {
      std::fprintf(stderr, "traced_run: cannot remove the old trace %s: %s\n", trace_path.c_str(), std::strerror(errno));
      return 1;
    }
    env.emplace_back("GEMMKIT_BLAS_TRACE", trace_path);
  }
  std::vector<char*> program(argv + i, argv + argc);
  program.push_back(nullptr);
  int const status = run_program(program, env, stdin_path);
  if (status != 0) {
    if (status != kSkip) std::fprintf(stderr, "traced_run: %s exited with status %d\n", argv[i], status);
    return status;
  }
  if (trace_path.empty()) return 0;

  // Every line one JSON object with the contract's keys and a known route.
  static char const* const kKeys[] = {"routine", "transa", "transb", "m", "n", "k", "batch",
                                      "route", "variant", "reason", "ms", "status"};
  static char const* const kRoutes[] = {"cpu", "gpu", "host-resident", "forward", "error"};
  std::vector<Row> rows;
  int bad_lines = 0;
  std::ifstream in(trace_path);
  std::string line;
  for (long number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    std::string error;
    std::optional<Row> row = LineParser(line).parse_object(&error);
    std::string why;
    if (!row) {
      why = error;
    } else {
      for (char const* key : kKeys) {
        if (row->count(key) == 0) why += std::string(why.empty() ? "" : ", ") + "no key '" + key + "'";
      }
      if (auto const it = row->find("route"); it != row->end()) {
        bool known = false;
        for (char const* route : kRoutes) known = known || it->second == route;
        if (!known) why += std::string(why.empty() ? "" : ", ") + "unknown route '" + it->second + "'";
      }
    }
    if (!why.empty()) {
      if (++bad_lines <= 5) std::fprintf(stderr, "trace %s:%ld: %s\n  %s\n", trace_path.c_str(), number, why.c_str(), line.c_str());
      continue;
    }
    rows.push_back(std::move(*row));
  }

  // A summary the test log keeps: rows per (routine, route).
  std::map<std::string, long> counts;
  for (Row const& row : rows) ++counts[row.at("routine") + " " + row.at("route")];
  std::printf("trace %s: %zu rows%s\n", trace_path.c_str(), rows.size(), bad_lines != 0 ? " (and bad lines)" : "");
  for (auto const& [key, count] : counts) std::printf("  %-40s %ld\n", key.c_str(), count);
  std::fflush(stdout);  // before the FAIL lines on stderr

  bool ok = bad_lines == 0;
  if (bad_lines != 0) std::fprintf(stderr, "FAIL: %d trace lines are not contract rows\n", bad_lines);
  for (Filter const& f : expects) {
    long n = 0;
    for (Row const& row : rows) n += f.matches(row) ? 1 : 0;
    if (n < f.min_rows) {
      std::fprintf(stderr, "FAIL: %ld rows match %s, expected at least %ld\n", n, f.text.c_str(), f.min_rows);
      ok = false;
    }
  }
  for (Filter const& f : forbids) {
    for (Row const& row : rows) {
      if (!f.matches(row)) continue;
      std::fprintf(stderr, "FAIL: a row matches %s (forbidden): routine %s route %s reason '%s'\n", f.text.c_str(),
                   row.at("routine").c_str(), row.at("route").c_str(), row.at("reason").c_str());
      ok = false;
      break;
    }
  }
  for (Filter const& f : alls) {
    for (Row const& row : rows) {
      if (f.matches(row)) continue;
      std::fprintf(stderr, "FAIL: a row does not match %s: routine %s route %s reason '%s'\n", f.text.c_str(),
                   row.at("routine").c_str(), row.at("route").c_str(), row.at("reason").c_str());
      ok = false;
      break;
    }
  }
  return ok ? 0 : 1;
}
