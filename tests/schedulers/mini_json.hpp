#ifndef TINE_TESTS_SCHEDULERS_MINI_JSON_HPP
#define TINE_TESTS_SCHEDULERS_MINI_JSON_HPP

// A strict little JSON parser (RFC 8259 grammar; numbers as double) for the trace tests: it
// throws std::runtime_error with the offset on anything that is not valid JSON, so a test that
// parses the trace checks its validity, then reads the structure.

#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mini_json {

struct value {
  enum class type { null, boolean, number, string, array, object } kind = type::null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<value> arr;
  std::map<std::string, value> obj;

  const value& at(const std::string& key) const {
    auto it = obj.find(key);
    if (kind != type::object || it == obj.end()) {
      throw std::runtime_error("json: no member '" + key + "'");
    }
    return it->second;
  }
  bool has(const std::string& key) const { return kind == type::object && obj.count(key) != 0; }
};

class parser {
 public:
  explicit parser(std::string_view text) : m_s(text) {}

  value parse() {
    value v = parse_value();
    skip_ws();
    if (m_i != m_s.size()) {
      fail("trailing characters");
    }
    return v;
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(std::string("json: ") + what + " at offset " + std::to_string(m_i));
  }
  void skip_ws() {
    while (m_i < m_s.size() &&
           (m_s[m_i] == ' ' || m_s[m_i] == '\n' || m_s[m_i] == '\r' || m_s[m_i] == '\t')) {
      ++m_i;
    }
  }
  char peek() {
    skip_ws();
    if (m_i >= m_s.size()) {
      fail("unexpected end");
    }
    return m_s[m_i];
  }
  void expect(char c) {
    if (peek() != c) {
      fail("unexpected character");
    }
    ++m_i;
  }
  void literal(std::string_view word) {
    if (m_s.substr(m_i, word.size()) != word) {
      fail("bad literal");
    }
    m_i += word.size();
  }

  value parse_value() {
    value v;
    const char c = peek();
    if (c == '{') {
      v.kind = value::type::object;
      ++m_i;
      if (peek() == '}') {
        ++m_i;
        return v;
      }
      for (;;) {
        if (peek() != '"') {
          fail("object key must be a string");
        }
        std::string key = parse_string();
        expect(':');
        if (!v.obj.emplace(key, parse_value()).second) {
          fail("duplicate key");
        }
        if (peek() == ',') {
          ++m_i;
          continue;
        }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.kind = value::type::array;
      ++m_i;
      if (peek() == ']') {
        ++m_i;
        return v;
      }
      for (;;) {
        v.arr.push_back(parse_value());
        if (peek() == ',') {
          ++m_i;
          continue;
        }
        expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.kind = value::type::string;
      v.str = parse_string();
      return v;
    }
    if (c == 't' || c == 'f') {
      v.kind = value::type::boolean;
      v.b = c == 't';
      literal(v.b ? "true" : "false");
      return v;
    }
    if (c == 'n') {
      literal("null");
      return v;
    }
    v.kind = value::type::number;
    v.num = parse_number();
    return v;
  }

  std::string parse_string() {
    expect('"');
    std::string out;
    while (m_i < m_s.size() && m_s[m_i] != '"') {
      const char c = m_s[m_i++];
      if (static_cast<unsigned char>(c) < 0x20) {
        fail("control character in string");
      }
      if (c == '\\') {
        if (m_i >= m_s.size()) {
          fail("unterminated escape");
        }
        const char e = m_s[m_i++];
        if (e == 'u') {
          for (int k = 0; k < 4; ++k) {
            if (m_i >= m_s.size() || !std::isxdigit(static_cast<unsigned char>(m_s[m_i++]))) {
              fail("bad \\u escape");
            }
          }
          out += '?';
        } else if (std::string_view("\"\\/bfnrt").find(e) != std::string_view::npos) {
          out += e;
        } else {
          fail("bad escape");
        }
      } else {
        out += c;
      }
    }
    if (m_i >= m_s.size()) {
      fail("unterminated string");
    }
    ++m_i;
    return out;
  }

  double parse_number() {
    const std::size_t start = m_i;
    const auto digits = [&] {
      const std::size_t from = m_i;
      while (m_i < m_s.size() && std::isdigit(static_cast<unsigned char>(m_s[m_i]))) {
        ++m_i;
      }
      if (m_i == from) {
        fail("digit expected");
      }
    };
    if (m_s[m_i] == '-') {
      ++m_i;
    }
    if (m_i < m_s.size() && m_s[m_i] == '0') {
      ++m_i;
    } else {
      digits();
    }
    if (m_i < m_s.size() && m_s[m_i] == '.') {
      ++m_i;
      digits();
    }
    if (m_i < m_s.size() && (m_s[m_i] == 'e' || m_s[m_i] == 'E')) {
      ++m_i;
      if (m_i < m_s.size() && (m_s[m_i] == '+' || m_s[m_i] == '-')) {
        ++m_i;
      }
      digits();
    }
    return std::strtod(std::string(m_s.substr(start, m_i - start)).c_str(), nullptr);
  }

  std::string_view m_s;
  std::size_t m_i = 0;
};

inline value parse(std::string_view text) { return parser(text).parse(); }

}  // namespace mini_json

#endif  // TINE_TESTS_SCHEDULERS_MINI_JSON_HPP
