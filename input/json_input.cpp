#include "input/json_input.hpp"

#include "input/check.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <vector>

namespace exsim {

using nlohmann::json;

namespace {

// Where the parser is, as a JSON path, for the limits' messages.
struct JsonPathTracker {
  struct Frame {
    bool array;
    size_t index = 0;
    std::string key;
    std::set<std::string> keys; // of an object, so far
  };
  std::vector<Frame> frames;

  std::string path() const {
    std::string out;
    for (const Frame& f : frames) {
      if (f.array)
        out += fmt::format("[{}]", f.index);
      else if (!f.key.empty())
        out = join_path(out, f.key);
    }
    return out;
  }
  // A value of the innermost container is complete.
  void completed() {
    if (!frames.empty() && frames.back().array) ++frames.back().index;
  }
};

// A path for a message: its start and its end when it is long (a deep nesting).
std::string short_path(const std::string& path) {
  if (path.empty()) return "(top level)";
  return path.size() <= 120 ? path : path.substr(0, 60) + " ... " + path.substr(path.size() - 40);
}

struct JsonLimitError {
  std::string path, what;
};

template <class J>
J parse_with_limits(const std::string& text, const std::string& label) {
  JsonPathTracker at;
  using Event = typename J::parse_event_t;
  auto callback = [&](int depth, Event event, J& parsed) -> bool {
    switch (event) {
    case Event::object_start:
    case Event::array_start:
      if (depth >= kMaxJsonDepth)
        throw JsonLimitError{at.path(), fmt::format("nested deeper than {} levels", kMaxJsonDepth)};
      at.frames.push_back({event == Event::array_start, 0, {}, {}});
      break;
    case Event::key: {
      const std::string key = parsed.template get<std::string>();
      JsonPathTracker::Frame& f = at.frames.back();
      f.key = key;
      if (!f.keys.insert(key).second)
        throw JsonLimitError{at.path(), "duplicate key in one object (JSON readers keep one of them)"};
      break;
    }
    case Event::object_end:
    case Event::array_end:
      at.frames.pop_back();
      at.completed();
      break;
    case Event::value:
      at.completed();
      break;
    }
    return true;
  };
  try {
    return J::parse(text, callback);
  } catch (const JsonLimitError& e) {
    throw InputError(fmt::format("{}: {}: {}", label, short_path(e.path), e.what));
  } catch (const json::parse_error& e) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw JsonSyntaxError(fmt::format("{}: not valid JSON (line {}, column {}): {}", label, line, col, e.what()));
  } catch (const json::out_of_range& e) { // 1e999
    std::string what = e.what();
    what.erase(0, what.find("] ") == std::string::npos ? 0 : what.find("] ") + 2); // nlohmann's error id
    const std::string path = at.path();
    throw InputError(fmt::format("{}: {}{}; expected a number within a double's range", label,
                                 path.empty() ? "" : short_path(path) + ": ", what));
  }
}

} // namespace

nlohmann::ordered_json parse_input_json(const std::string& text, const std::string& label) {
  return parse_with_limits<nlohmann::ordered_json>(text, label);
}

nlohmann::json parse_input_json_unordered(const std::string& text, const std::string& label) {
  return parse_with_limits<nlohmann::json>(text, label);
}

std::string read_input_file(const std::string& path, const std::string& what) {
  auto fail = [&](int error) {
    return InputError(fmt::format("{}: cannot read the {}: {}", path, what, std::strerror(error)));
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw fail(errno);
  if (S_ISDIR(st.st_mode)) throw fail(EISDIR);
  if (!S_ISREG(st.st_mode))
    throw InputError(fmt::format("{}: cannot read the {}: not a regular file (a device, FIFO or socket)", path, what));
  constexpr off_t kMaxBytes = off_t{1} << 30;
  if (st.st_size > kMaxBytes)
    throw InputError(fmt::format("{}: cannot read the {}: {} bytes, expected at most 1 GiB", path, what, st.st_size));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw fail(errno);
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0 && text.size() <= static_cast<size_t>(kMaxBytes))
    text.append(buf, n);
  const int error = std::ferror(f) ? errno : 0;
  std::fclose(f);
  if (error != 0) throw fail(error);
  if (text.size() > static_cast<size_t>(kMaxBytes))
    throw InputError(fmt::format("{}: cannot read the {}: it grew past 1 GiB while read", path, what));
  return text;
}

nlohmann::ordered_json read_scenario_json(const std::string& path) {
  return parse_input_json(read_input_file(path, "scenario file"), path);
}

} // namespace exsim
