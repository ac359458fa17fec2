#include "input/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace exsim {

namespace {

char lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

std::vector<std::string> parts(const std::string& word) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : word) {
    if (c == '_' || c == '-' || c == '.') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += lower(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

} // namespace

size_t edit_distance(const std::string& a, const std::string& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i)
    d[i][0] = i;
  for (size_t j = 0; j <= m; ++j)
    d[0][j] = j;
  for (size_t i = 1; i <= n; ++i)
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates) {
  if (word.empty()) return "";
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  std::string best;
  size_t best_d = limit + 1;
  bool tie = false;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_d) {
      best = c;
      best_d = d;
      tie = false;
    } else if (d == best_d && c != best) {
      tie = true;
    }
  }
  if (!best.empty() && !tie) return best;
  // A shortened name: the one candidate that starts with the word (rtt -> rtt_us).
  std::string prefixed;
  for (const std::string& c : candidates) {
    if (c.size() <= word.size() || edit_distance(c.substr(0, word.size()), word) != 0 || c == prefixed)
      continue;
    if (!prefixed.empty()) {
      prefixed.clear();
      break;
    }
    prefixed = c;
  }
  if (!prefixed.empty()) return prefixed;
  // No typo-near name: the one candidate containing every part of the word, if only one does.
  const std::vector<std::string> want = parts(word);
  if (want.empty()) return "";
  std::string found;
  for (const std::string& c : candidates) {
    const std::vector<std::string> have = parts(c);
    const bool all = std::all_of(want.begin(), want.end(), [&](const std::string& w) {
      return std::find(have.begin(), have.end(), w) != have.end();
    });
    if (!all || c == found) continue;
    if (!found.empty()) return "";
    found = c;
  }
  return found;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string near = nearest_name(word, candidates);
  return near.empty() ? "" : " did you mean " + near + "?";
}

} // namespace exsim
