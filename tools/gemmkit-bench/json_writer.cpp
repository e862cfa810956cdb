/*! \file
    \brief A hand-written JSON-lines writer: one flat object per measured case, appended to a file.
*/
#include "json_writer.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>

namespace gemmkit::bench {

std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char const ch : s) {
    auto const c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
          out += buffer;
        } else {
          out += ch;  // UTF-8 bytes pass through unchanged
        }
    }
  }
  out += '"';
  return out;
}

void JsonObject::key(std::string_view k) {
  if (!body_.empty()) body_ += ", ";
  body_ += json_quote(k);
  body_ += ": ";
}

JsonObject& JsonObject::add_string(std::string_view k, std::string_view value) {
  key(k);
  body_ += json_quote(value);
  return *this;
}

JsonObject& JsonObject::add_number(std::string_view k, double value) {
  key(k);
  if (!std::isfinite(value)) {
    body_ += "null";
    return *this;
  }
  // 7 significant digits: more than any timing here can resolve, and it round-trips GFLOP/s.
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.7g", value);
  body_ += buffer;
  return *this;
}

JsonObject& JsonObject::add_int(std::string_view k, std::int64_t value) {
  key(k);
  body_ += std::to_string(value);
  return *this;
}

JsonObject& JsonObject::add_bool(std::string_view k, bool value) {
  key(k);
  body_ += value ? "true" : "false";
  return *this;
}

JsonObject& JsonObject::add_null(std::string_view k) {
  key(k);
  body_ += "null";
  return *this;
}

JsonObject& JsonObject::add_object(std::string_view k, JsonObject const& value) {
  key(k);
  body_ += value.str();
  return *this;
}

JsonObject& JsonObject::append(JsonObject const& other) {
  if (!other.body_.empty()) body_ += (body_.empty() ? "" : ", ") + other.body_;
  return *this;
}

JsonLinesFile::~JsonLinesFile() {
  if (file_ != nullptr) std::fclose(file_);
}

std::string JsonLinesFile::open(std::string const& path) {
  file_ = std::fopen(path.c_str(), "a");
  if (file_ == nullptr) return "cannot open '" + path + "' for appending: " + std::strerror(errno);
  return {};
}

void JsonLinesFile::write(JsonObject const& object) {
  if (file_ == nullptr) return;
  std::string const line = object.str() + "\n";
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

}  // namespace gemmkit::bench
