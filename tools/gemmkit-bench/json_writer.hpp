/*! \file
    \brief A hand-written JSON-lines writer: one flat object per measured case, appended to a file.
*/
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace gemmkit::bench {

/// `s` as a JSON string literal, quotes included (control characters escaped as \uXXXX).
std::string json_quote(std::string_view s);

/// Builds one JSON object in insertion order. The adders have distinct names on purpose: an
/// overloaded add("key", "text") would pick the bool overload for a string literal.
class JsonObject {
 public:
  JsonObject& add_string(std::string_view key, std::string_view value);
  /// Non-finite values are written as null: JSON has no NaN or Inf.
  JsonObject& add_number(std::string_view key, double value);
  JsonObject& add_int(std::string_view key, std::int64_t value);
  JsonObject& add_bool(std::string_view key, bool value);
  JsonObject& add_null(std::string_view key);
  JsonObject& add_object(std::string_view key, JsonObject const& value);
  /// Adds every key of `other` after this object's own (the caller keeps the keys distinct).
  JsonObject& append(JsonObject const& other);

  std::string str() const { return "{" + body_ + "}"; }
  bool empty() const { return body_.empty(); }

 private:
  void key(std::string_view k);
  std::string body_;
};

/// Appends one object per line to a file, flushed after every line so a killed sweep keeps its rows.
class JsonLinesFile {
 public:
  JsonLinesFile() = default;
  ~JsonLinesFile();
  JsonLinesFile(JsonLinesFile const&) = delete;
  JsonLinesFile& operator=(JsonLinesFile const&) = delete;

  /// Opens `path` for appending; returns "" or an error message.
  std::string open(std::string const& path);
  bool is_open() const { return file_ != nullptr; }
  void write(JsonObject const& object);

 private:
  std::FILE* file_ = nullptr;
};

}  // namespace gemmkit::bench
