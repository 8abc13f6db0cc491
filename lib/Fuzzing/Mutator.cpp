//===- Mutator.cpp - Structure-aware mutations of MLIR text ---------------===//

#include "spio/Fuzzing/Mutator.h"

#include <algorithm>
#include <cctype>
#include <charconv>

using namespace spio::fuzzing;

const std::vector<std::string> &spio::fuzzing::edgeIntegers() {
  static const std::vector<std::string> values = {"0",
                                                  "1",
                                                  "2",
                                                  "3",
                                                  "4",
                                                  "7",
                                                  "8",
                                                  "9",
                                                  "15",
                                                  "16",
                                                  "17",
                                                  "31",
                                                  "32",
                                                  "33",
                                                  "63",
                                                  "64",
                                                  "65",
                                                  "127",
                                                  "128",
                                                  "129",
                                                  "255",
                                                  "256",
                                                  "1023",
                                                  "1024",
                                                  "4096",
                                                  "65535",
                                                  "65536",
                                                  "2147483647",
                                                  "2147483648",
                                                  "4294967295",
                                                  "4294967296",
                                                  "1099511627776",
                                                  "4611686018427387904",
                                                  "9223372036854775807",
                                                  "9223372036854775808",
                                                  "18446744073709551616",
                                                  "-1",
                                                  "-2",
                                                  "-9223372036854775808"};
  return values;
}

namespace {

/// A token of the input: its place and what kind of edit it takes.
struct Token {
  size_t begin, end;
  enum Kind { Integer, Word } kind;
};

bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$';
}

bool isSigil(char c) { return c == '%' || c == '#' || c == '!' || c == '@' || c == '^'; }

/// Integers that stand alone (a shape's 8 in `vector<8xf16>`, a config's
/// 128, `-1`), not digits inside names (`f16`, `%c0`, `m64n8`); and words,
/// with their sigil (`%x`, `!X`, `#spio.gemm_config`, `fprop`, `f16`).
std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> tokens;
  size_t i = 0, n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n')
        ++i;
      continue;
    }
    if (c == '"') {
      for (++i; i < n && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      ++i;
      continue;
    }
    bool digitStart =
        std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '-' && i + 1 < n && std::isdigit(static_cast<unsigned char>(text[i + 1])));
    if (digitStart) {
      size_t begin = i++;
      while (i < n && std::isdigit(static_cast<unsigned char>(text[i])))
        ++i;
      // `8xf16`: the shape's 8 ends at the `x`.
      if (i < n && isWordChar(text[i]) && text[i] != 'x') {
        while (i < n && isWordChar(text[i]))
          ++i;
        continue;
      }
      tokens.push_back({begin, i, Token::Integer});
      continue;
    }
    if (isSigil(c) || std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t begin = i++;
      while (i < n && (isWordChar(text[i]) || text[i] == '-'))
        ++i;
      tokens.push_back({begin, i, Token::Word});
      continue;
    }
    ++i;
  }
  return tokens;
}

template <typename T> T pick(std::mt19937_64 &rng, T lo, T hi) {
  return std::uniform_int_distribution<T>(lo, hi)(rng);
}

/// An integer near `text`'s value (one more or less, twice, half) or one
/// of the edge values.
std::string newInteger(std::string_view text, std::mt19937_64 &rng) {
  const auto &edges = edgeIntegers();
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || pick(rng, 0, 2) == 0)
    return edges[pick<size_t>(rng, 0, edges.size() - 1)];
  switch (pick(rng, 0, 3)) {
  case 0:
    return std::to_string(value + (value < INT64_MAX ? 1 : 0));
  case 1:
    return std::to_string(value - (value > INT64_MIN ? 1 : 0));
  case 2:
    return std::to_string(value > INT64_MAX / 2 || value < INT64_MIN / 2 ? value : 2 * value);
  default:
    return std::to_string(value / 2);
  }
}

/// Line boundaries: [begin, end) of each line, the newline included.
std::vector<std::pair<size_t, size_t>> lines(const std::string &text) {
  std::vector<std::pair<size_t, size_t>> result;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    end = end == std::string::npos ? text.size() : end + 1;
    result.push_back({begin, end});
    begin = end;
  }
  return result;
}

/// One edit of `text` in place; false where the text offers nothing to
/// edit of the kind drawn.
bool editOnce(std::string &text, std::mt19937_64 &rng) {
  std::vector<Token> tokens = tokenize(text);
  auto tokensOf = [&](Token::Kind kind) {
    std::vector<Token> result;
    std::copy_if(tokens.begin(), tokens.end(), std::back_inserter(result),
                 [&](const Token &t) { return t.kind == kind; });
    return result;
  };
  auto replace = [&](const Token &t, const std::string &with) {
    text.replace(t.begin, t.end - t.begin, with);
  };
  int kind = pick(rng, 0, 99);
  if (kind < 45) {
    // An integer becomes an edge value or a neighbour of its own.
    std::vector<Token> integers = tokensOf(Token::Integer);
    if (integers.empty())
      return false;
    const Token &t = integers[pick<size_t>(rng, 0, integers.size() - 1)];
    replace(t, newInteger(std::string_view(text).substr(t.begin, t.end - t.begin), rng));
    return true;
  }
  if (kind < 55) {
    // An integer becomes another of the file's (a dim's size swapped for
    // another's).
    std::vector<Token> integers = tokensOf(Token::Integer);
    if (integers.size() < 2)
      return false;
    const Token &to = integers[pick<size_t>(rng, 0, integers.size() - 1)];
    const Token &from = integers[pick<size_t>(rng, 0, integers.size() - 1)];
    replace(to, text.substr(from.begin, from.end - from.begin));
    return true;
  }
  if (kind < 75) {
    // A word becomes another of the file's with the same sigil: an SSA
    // value, a type alias, a dim name, an op, a keyword (fprop/wgrad,
    // shared/global, f16/bf16).
    std::vector<Token> words = tokensOf(Token::Word);
    if (words.size() < 2)
      return false;
    const Token &to = words[pick<size_t>(rng, 0, words.size() - 1)];
    std::vector<const Token *> alike;
    for (const Token &w : words)
      if (isSigil(text[w.begin]) == isSigil(text[to.begin]) &&
          (!isSigil(text[w.begin]) || text[w.begin] == text[to.begin]))
        alike.push_back(&w);
    const Token &from = *alike[pick<size_t>(rng, 0, alike.size() - 1)];
    replace(to, text.substr(from.begin, from.end - from.begin));
    return true;
  }
  if (kind < 82) {
    // A token is deleted.
    if (tokens.empty())
      return false;
    const Token &t = tokens[pick<size_t>(rng, 0, tokens.size() - 1)];
    text.erase(t.begin, t.end - t.begin);
    return true;
  }
  auto lineSpans = lines(text);
  if (lineSpans.empty())
    return false;
  auto [begin, end] = lineSpans[pick<size_t>(rng, 0, lineSpans.size() - 1)];
  if (kind < 88) {
    // A line is deleted (an op, a terminator, a type alias).
    text.erase(begin, end - begin);
    return true;
  }
  if (kind < 94) {
    // A line is repeated (an op defined twice, a second terminator).
    text.insert(end, text.substr(begin, end - begin));
    return true;
  }
  if (kind < 97) {
    // A line moves elsewhere (a use before its definition).
    std::string line = text.substr(begin, end - begin);
    text.erase(begin, end - begin);
    auto rest = lines(text);
    text.insert(rest.empty() ? 0 : rest[pick<size_t>(rng, 0, rest.size() - 1)].first, line);
    return true;
  }
  // A punctuation character the grammar uses, anywhere.
  static const std::string punctuation = "<>[](){},:=x*/-?";
  text.insert(pick<size_t>(rng, 0, text.size()), 1,
              punctuation[pick<size_t>(rng, 0, punctuation.size() - 1)]);
  return true;
}

} // namespace

std::string spio::fuzzing::mutate(std::string_view input, std::mt19937_64 &rng, size_t maxBytes,
                                  int maxEdits) {
  std::string text(input);
  // Mostly one edit, now and then several (geometric).
  int edits = 1;
  while (edits < maxEdits && pick(rng, 0, 2) == 0)
    ++edits;
  // An edit that wrote back what was there (a word for itself) does not count.
  for (int attempt = 0, done = 0; done < edits && attempt < 4 * edits; ++attempt) {
    std::string before = text;
    if (editOnce(text, rng) && text != before)
      ++done;
  }
  if (text.size() > maxBytes)
    text.resize(maxBytes);
  return text;
}

std::vector<std::string_view> spio::fuzzing::splitInputFile(std::string_view input) {
  std::vector<std::string_view> pieces;
  size_t begin = 0, lineBegin = 0;
  while (lineBegin <= input.size()) {
    size_t lineEnd = input.find('\n', lineBegin);
    if (lineEnd == std::string_view::npos)
      lineEnd = input.size();
    std::string_view line = input.substr(lineBegin, lineEnd - lineBegin);
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line.substr(first).rfind("// -----", 0) == 0) {
      pieces.push_back(input.substr(begin, lineBegin - begin));
      begin = std::min(lineEnd + 1, input.size());
    }
    lineBegin = lineEnd + 1;
  }
  pieces.push_back(input.substr(begin));
  return pieces;
}
