// Expression: tokenizer, recursive-descent compiler with static types, and the
// stack machine that runs the compiled program.
#include "space/expression.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace ktune {

enum class Expression::Op : std::uint8_t {
  push,           // value
  push_text,      // arg: index in strings_
  load,           // arg: slot
  int_to_real,    // top
  int_to_real_2,  // the entry under the top
  neg_i, neg_r, not_b,
  add_i, sub_i, mul_i, div_i, mod_i,
  add_r, sub_r, mul_r, div_r, mod_r,
  eq_i, ne_i, lt_i, le_i, gt_i, ge_i,
  eq_r, ne_r, lt_r, le_r, gt_r, ge_r,
  eq_b, ne_b, eq_s, ne_s,
  min_i, max_i, min_r, max_r, abs_i, abs_r,
  jump_if_false_or_pop,  // arg: target (keeps the false on the stack when jumping)
  jump_if_true_or_pop,   // arg: target
};

namespace {

constexpr int kMaxDepth = 64;

std::string column_prefix(std::size_t column) {
  return column ? "column " + std::to_string(column) + ": " : std::string();
}

enum class TokenKind { integer, real, text, name, symbol, end };

struct Token {
  TokenKind kind = TokenKind::end;
  std::string text;  // name, symbol, or the text literal's contents
  std::size_t column = 0;
  std::int64_t i = 0;
  double d = 0;
};

std::vector<Token> tokenize(std::string_view src) {
  std::vector<Token> out;
  std::size_t pos = 0;
  auto fail = [](std::size_t col, const std::string& msg) { throw ExpressionError(msg, col); };
  while (true) {
    while (pos < src.size() && std::isspace(static_cast<unsigned char>(src[pos]))) ++pos;
    Token t;
    t.column = pos + 1;
    if (pos >= src.size()) {
      t.kind = TokenKind::end;
      out.push_back(t);
      return out;
    }
    const char c = src[pos];
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && pos + 1 < src.size() && std::isdigit(static_cast<unsigned char>(src[pos + 1])))) {
      std::size_t end = pos;
      bool real = false;
      while (end < src.size() && std::isdigit(static_cast<unsigned char>(src[end]))) ++end;
      if (end < src.size() && src[end] == '.') {
        real = true;
        ++end;
        while (end < src.size() && std::isdigit(static_cast<unsigned char>(src[end]))) ++end;
      }
      if (end < src.size() && (src[end] == 'e' || src[end] == 'E')) {
        std::size_t e = end + 1;
        if (e < src.size() && (src[e] == '+' || src[e] == '-')) ++e;
        if (e < src.size() && std::isdigit(static_cast<unsigned char>(src[e]))) {
          real = true;
          end = e;
          while (end < src.size() && std::isdigit(static_cast<unsigned char>(src[end]))) ++end;
        }
      }
      if (end < src.size() && (std::isalpha(static_cast<unsigned char>(src[end])) || src[end] == '_'))
        fail(end + 1, "unexpected '" + std::string(1, src[end]) + "' after a number");
      std::string_view digits = src.substr(pos, end - pos);
      t.text = std::string(digits);
      if (real) {
        t.kind = TokenKind::real;
        auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), t.d);
        if (ec != std::errc() || p != digits.data() + digits.size())
          fail(t.column, "malformed number '" + t.text + "'");
      } else {
        t.kind = TokenKind::integer;
        auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), t.i);
        if (ec != std::errc() || p != digits.data() + digits.size())
          fail(t.column, "integer '" + t.text + "' is too large");
      }
      pos = end;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t end = pos;
      while (end < src.size() &&
             (std::isalnum(static_cast<unsigned char>(src[end])) || src[end] == '_'))
        ++end;
      t.kind = TokenKind::name;
      t.text = std::string(src.substr(pos, end - pos));
      pos = end;
    } else if (c == '\'' || c == '"') {
      std::size_t end = pos + 1;
      while (end < src.size() && src[end] != c) ++end;
      if (end >= src.size()) fail(t.column, "unterminated text literal");
      t.kind = TokenKind::text;
      t.text = std::string(src.substr(pos + 1, end - pos - 1));
      pos = end + 1;
    } else {
      static constexpr std::string_view two[] = {"==", "!=", "<=", ">=", "&&", "||"};
      t.kind = TokenKind::symbol;
      // assign(), not operator=: GCC 12 at -O3 reports a false -Wrestrict on the inlined operator=.
      for (std::string_view s : two)
        if (src.substr(pos, 2) == s) t.text.assign(s.data(), s.size());
      if (t.text.empty()) {
        if (std::string_view("+-*/%<>!()," ).find(c) == std::string_view::npos) {
          if (c == '=') fail(t.column, "unexpected '=' (write '==' to compare)");
          if (c == '&') fail(t.column, "unexpected '&' (write '&&')");
          if (c == '|') fail(t.column, "unexpected '|' (write '||')");
          fail(t.column, "unexpected character '" + std::string(1, c) + "'");
        }
        t.text = std::string(1, c);
      }
      pos += t.text.size();
    }
    out.push_back(std::move(t));
  }
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::end: return "end of expression";
    case TokenKind::text: return "'" + t.text + "'";
    default: return "'" + t.text + "'";
  }
}

}  // namespace

ExpressionError::ExpressionError(const std::string& message, std::size_t column)
    : SpaceError(column_prefix(column) + message), column_(column), detail_(message) {}

std::string_view to_string(ExprType t) {
  switch (t) {
    case ExprType::integer: return "integer";
    case ExprType::real: return "real";
    case ExprType::boolean: return "boolean";
    case ExprType::text: return "text";
  }
  return "unknown";
}

ExprType type_of(const Value& v) {
  switch (v.index()) {
    case 0: return ExprType::integer;
    case 1: return ExprType::real;
    case 2: return ExprType::boolean;
    default: return ExprType::text;
  }
}

Scalar to_scalar(const Value& v) {
  Scalar s{};
  switch (v.index()) {
    case 0: s.i = std::get<std::int64_t>(v); break;
    case 1: s.d = std::get<double>(v); break;
    case 2: s.b = std::get<bool>(v); break;
    default: s.s = &std::get<std::string>(v); break;
  }
  return s;
}

/// Recursive descent over the tokens, emitting typed instructions as it goes.
class ExpressionParser {
 public:
  ExpressionParser(Expression& e, std::vector<Token> tokens, const ExprResolver& resolve)
      : e_(e), tokens_(std::move(tokens)), resolve_(resolve) {}

  void parse() {
    Operand top = parse_or();
    if (peek().kind != TokenKind::end)
      fail(peek().column, "unexpected " + describe(peek()) + " (expected an operator or the end)");
    e_.type_ = top.type;
  }

 private:
  using Op = Expression::Op;

  /// What the compiler knows about the value on top of the stack.
  struct Operand {
    ExprType type = ExprType::integer;
    std::size_t column = 0;
    std::string name;                           // when it is a plain identifier
    const std::vector<Value>* allowed = nullptr;  // text slot's possible values
    std::optional<std::string> literal;         // when it is a text literal
  };

  static Operand typed(ExprType type, std::size_t column) {
    Operand o;
    o.type = type;
    o.column = column;
    return o;
  }

  [[noreturn]] void fail(std::size_t column, const std::string& msg) const {
    throw ExpressionError(msg, column);
  }
  const Token& peek() const { return tokens_[pos_]; }
  bool accept(std::string_view symbol) {
    if (peek().kind == TokenKind::symbol && peek().text == symbol) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(std::string_view symbol) {
    if (!accept(symbol))
      fail(peek().column, "expected '" + std::string(symbol) + "', found " + describe(peek()));
  }

  void emit(Op op, std::int32_t arg = 0, Scalar value = {}) {
    e_.code_.push_back({op, arg, value});
  }
  void push_depth() {
    if (++depth_ > e_.max_depth_) e_.max_depth_ = depth_;
    if (depth_ > kMaxDepth) fail(0, "expression is nested too deeply");
  }

  static bool numeric(ExprType t) { return t == ExprType::integer || t == ExprType::real; }

  void need_numeric(const Operand& a, std::string_view op, std::size_t column) const {
    if (!numeric(a.type))
      fail(column, "'" + std::string(op) + "' needs numbers, got " + std::string(to_string(a.type)) +
                       (a.name.empty() ? std::string() : " '" + a.name + "'"));
  }
  void need_boolean(const Operand& a, std::string_view op, std::size_t column) const {
    if (a.type != ExprType::boolean)
      fail(column, "'" + std::string(op) + "' needs conditions, got " +
                       std::string(to_string(a.type)) +
                       (a.name.empty() ? std::string() : " '" + a.name + "'"));
  }

  /// Brings two numeric operands (left under right) to one type; returns it.
  ExprType unify(const Operand& left, const Operand& right) {
    if (left.type == right.type) return left.type;
    if (left.type == ExprType::integer) emit(Op::int_to_real_2);
    else emit(Op::int_to_real);
    return ExprType::real;
  }

  Operand parse_or() {
    Operand left = parse_and();
    while (peek().kind == TokenKind::symbol && peek().text == "||") {
      const std::size_t col = peek().column;
      ++pos_;
      need_boolean(left, "||", col);
      const std::size_t jump = e_.code_.size();
      emit(Op::jump_if_true_or_pop);
      --depth_;
      Operand right = parse_and();
      need_boolean(right, "||", col);
      e_.code_[jump].arg = static_cast<std::int32_t>(e_.code_.size());
      left = typed(ExprType::boolean, left.column);
    }
    return left;
  }

  Operand parse_and() {
    Operand left = parse_cmp();
    while (peek().kind == TokenKind::symbol && peek().text == "&&") {
      const std::size_t col = peek().column;
      ++pos_;
      need_boolean(left, "&&", col);
      const std::size_t jump = e_.code_.size();
      emit(Op::jump_if_false_or_pop);
      --depth_;
      Operand right = parse_cmp();
      need_boolean(right, "&&", col);
      e_.code_[jump].arg = static_cast<std::int32_t>(e_.code_.size());
      left = typed(ExprType::boolean, left.column);
    }
    return left;
  }

  void check_text_literal(const Operand& slot, const Operand& literal) const {
    if (!slot.allowed || !literal.literal) return;
    for (const Value& v : *slot.allowed)
      if (std::get<std::string>(v) == *literal.literal) return;
    std::string list;
    for (const Value& v : *slot.allowed) list += (list.empty() ? "" : ", ") + std::get<std::string>(v);
    fail(literal.column,
         "'" + *literal.literal + "' is not a value of '" + slot.name + "' (" + list + ")");
  }

  Operand parse_cmp() {
    Operand left = parse_sum();
    while (peek().kind == TokenKind::symbol &&
           (peek().text == "==" || peek().text == "!=" || peek().text == "<" ||
            peek().text == "<=" || peek().text == ">" || peek().text == ">=")) {
      const std::string op = peek().text;
      const std::size_t col = peek().column;
      ++pos_;
      Operand right = parse_sum();
      const bool equality = op == "==" || op == "!=";
      if (numeric(left.type) && numeric(right.type)) {
        const bool real = unify(left, right) == ExprType::real;
        Op code;
        if (op == "==") code = real ? Op::eq_r : Op::eq_i;
        else if (op == "!=") code = real ? Op::ne_r : Op::ne_i;
        else if (op == "<") code = real ? Op::lt_r : Op::lt_i;
        else if (op == "<=") code = real ? Op::le_r : Op::le_i;
        else if (op == ">") code = real ? Op::gt_r : Op::gt_i;
        else code = real ? Op::ge_r : Op::ge_i;
        emit(code);
      } else if (equality && left.type == right.type && left.type == ExprType::boolean) {
        emit(op == "==" ? Op::eq_b : Op::ne_b);
      } else if (equality && left.type == right.type && left.type == ExprType::text) {
        check_text_literal(left, right);
        check_text_literal(right, left);
        emit(op == "==" ? Op::eq_s : Op::ne_s);
      } else if (!equality) {
        need_numeric(numeric(left.type) ? right : left, op, col);
      } else {
        fail(col, "cannot compare " + std::string(to_string(left.type)) + " with " +
                      std::string(to_string(right.type)) + " using '" + op + "'");
      }
      --depth_;
      left = typed(ExprType::boolean, left.column);
    }
    return left;
  }

  Operand parse_sum() {
    Operand left = parse_prod();
    while (peek().kind == TokenKind::symbol && (peek().text == "+" || peek().text == "-")) {
      const std::string op = peek().text;
      const std::size_t col = peek().column;
      ++pos_;
      Operand right = parse_prod();
      need_numeric(left, op, col);
      need_numeric(right, op, col);
      const bool real = unify(left, right) == ExprType::real;
      if (op == "+") emit(real ? Op::add_r : Op::add_i);
      else emit(real ? Op::sub_r : Op::sub_i);
      --depth_;
      left = typed(real ? ExprType::real : ExprType::integer, left.column);
    }
    return left;
  }

  Operand parse_prod() {
    Operand left = parse_unary();
    while (peek().kind == TokenKind::symbol &&
           (peek().text == "*" || peek().text == "/" || peek().text == "%")) {
      const std::string op = peek().text;
      const std::size_t col = peek().column;
      ++pos_;
      Operand right = parse_unary();
      need_numeric(left, op, col);
      need_numeric(right, op, col);
      const bool real = unify(left, right) == ExprType::real;
      if (op == "*") emit(real ? Op::mul_r : Op::mul_i);
      else if (op == "/") emit(real ? Op::div_r : Op::div_i);
      else emit(real ? Op::mod_r : Op::mod_i);
      --depth_;
      left = typed(real ? ExprType::real : ExprType::integer, left.column);
    }
    return left;
  }

  Operand parse_unary() {
    const Token& t = peek();
    if (t.kind == TokenKind::symbol && t.text == "-") {
      const std::size_t col = t.column;
      ++pos_;
      Operand a = parse_unary();
      need_numeric(a, "-", col);
      emit(a.type == ExprType::real ? Op::neg_r : Op::neg_i);
      return typed(a.type, col);
    }
    if (t.kind == TokenKind::symbol && t.text == "!") {
      const std::size_t col = t.column;
      ++pos_;
      Operand a = parse_unary();
      need_boolean(a, "!", col);
      emit(Op::not_b);
      return typed(ExprType::boolean, col);
    }
    return parse_primary();
  }

  Operand push_constant(const Value& v, std::size_t column) {
    Operand o = typed(type_of(v), column);
    if (o.type == ExprType::text) {
      e_.strings_.push_back(std::get<std::string>(v));
      emit(Op::push_text, static_cast<std::int32_t>(e_.strings_.size() - 1));
    } else {
      emit(Op::push, 0, to_scalar(v));
    }
    push_depth();
    return o;
  }

  Operand parse_call(const Token& name) {
    const std::size_t col = name.column;
    if (name.text != "min" && name.text != "max" && name.text != "abs")
      fail(col, "unknown function '" + name.text + "' (known: min, max, abs)");
    expect("(");
    std::vector<Operand> args;
    Operand acc = parse_or();
    need_numeric(acc, name.text, acc.column);
    args.push_back(acc);
    while (accept(",")) {
      Operand next = parse_or();
      need_numeric(next, name.text, next.column);
      if (name.text == "abs") fail(next.column, "abs takes one argument");
      const bool real = unify(acc, next) == ExprType::real;
      emit(name.text == "min" ? (real ? Op::min_r : Op::min_i) : (real ? Op::max_r : Op::max_i));
      --depth_;
      acc = typed(real ? ExprType::real : ExprType::integer, col);
      args.push_back(next);
    }
    expect(")");
    if (name.text == "abs") {
      emit(acc.type == ExprType::real ? Op::abs_r : Op::abs_i);
    } else if (args.size() < 2) {
      fail(col, name.text + " takes two or more arguments");
    }
    return typed(acc.type, col);
  }

  Operand parse_primary() {
    const Token t = peek();
    switch (t.kind) {
      case TokenKind::integer:
        ++pos_;
        return push_constant(Value(t.i), t.column);
      case TokenKind::real:
        ++pos_;
        return push_constant(Value(t.d), t.column);
      case TokenKind::text: {
        ++pos_;
        Operand o = push_constant(Value(t.text), t.column);
        o.literal = t.text;
        return o;
      }
      case TokenKind::name: {
        ++pos_;
        if (t.text == "true" || t.text == "false") return push_constant(Value(t.text == "true"), t.column);
        if (peek().kind == TokenKind::symbol && peek().text == "(") return parse_call(t);
        std::optional<ExprSymbol> sym = resolve_(t.text);
        if (!sym) fail(t.column, "unknown name '" + t.text + "'");
        if (std::find(e_.names_.begin(), e_.names_.end(), t.text) == e_.names_.end())
          e_.names_.push_back(t.text);
        Operand o;
        if (sym->slot >= 0) {
          emit(Op::load, sym->slot);
          push_depth();
          o.type = sym->type;
          o.column = t.column;
          o.allowed = sym->type == ExprType::text ? sym->allowed : nullptr;
          if (std::find(e_.slots_.begin(), e_.slots_.end(), sym->slot) == e_.slots_.end())
            e_.slots_.push_back(sym->slot);
        } else {
          o = push_constant(sym->constant, t.column);
        }
        o.name = t.text;
        return o;
      }
      case TokenKind::symbol:
        if (t.text == "(") {
          ++pos_;
          Operand inner = parse_or();
          expect(")");
          inner.name.clear();
          inner.literal.reset();
          inner.allowed = nullptr;
          return inner;
        }
        fail(t.column, "expected a value, found " + describe(t));
      case TokenKind::end:
        fail(t.column, "expected a value, found the end of the expression");
    }
    fail(t.column, "expected a value");
  }

  Expression& e_;
  std::vector<Token> tokens_;
  const ExprResolver& resolve_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

Expression Expression::compile(std::string_view text, const ExprResolver& resolve) {
  Expression e;
  e.text_ = std::string(text);
  ExpressionParser parser(e, tokenize(text), resolve);
  parser.parse();
  std::sort(e.slots_.begin(), e.slots_.end());
  return e;
}

Expression Expression::compile(std::string_view text, const ValueMap& names) {
  return compile(text, [&names](std::string_view name) -> std::optional<ExprSymbol> {
    if (!names.contains(name)) return std::nullopt;
    ExprSymbol s;
    s.constant = names.at(name);
    s.type = type_of(s.constant);
    return s;
  });
}

bool Expression::run(const Scalar* slots, Scalar& out) const {
  Scalar stack[kMaxDepth];
  int sp = -1;  // index of the top
  const std::size_t n = code_.size();
  for (std::size_t pc = 0; pc < n; ++pc) {
    const Instruction& in = code_[pc];
    switch (in.op) {
      case Op::push: stack[++sp] = in.value; break;
      case Op::push_text: stack[++sp].s = &strings_[static_cast<std::size_t>(in.arg)]; break;
      case Op::load: stack[++sp] = slots[in.arg]; break;
      case Op::int_to_real: stack[sp].d = static_cast<double>(stack[sp].i); break;
      case Op::int_to_real_2: stack[sp - 1].d = static_cast<double>(stack[sp - 1].i); break;
      case Op::neg_i: stack[sp].i = -stack[sp].i; break;
      case Op::neg_r: stack[sp].d = -stack[sp].d; break;
      case Op::not_b: stack[sp].b = !stack[sp].b; break;
#define KTUNE_BINARY(OP, FIELD_IN, FIELD_OUT, EXPR) \
  case Op::OP: {                                    \
    const auto a = stack[sp - 1].FIELD_IN;          \
    const auto b = stack[sp].FIELD_IN;              \
    --sp;                                           \
    stack[sp].FIELD_OUT = (EXPR);                   \
    break;                                          \
  }
      KTUNE_BINARY(add_i, i, i, a + b)
      KTUNE_BINARY(sub_i, i, i, a - b)
      KTUNE_BINARY(mul_i, i, i, a * b)
      KTUNE_BINARY(add_r, d, d, a + b)
      KTUNE_BINARY(sub_r, d, d, a - b)
      KTUNE_BINARY(mul_r, d, d, a * b)
      KTUNE_BINARY(eq_i, i, b, a == b)
      KTUNE_BINARY(ne_i, i, b, a != b)
      KTUNE_BINARY(lt_i, i, b, a < b)
      KTUNE_BINARY(le_i, i, b, a <= b)
      KTUNE_BINARY(gt_i, i, b, a > b)
      KTUNE_BINARY(ge_i, i, b, a >= b)
      KTUNE_BINARY(eq_r, d, b, a == b)
      KTUNE_BINARY(ne_r, d, b, a != b)
      KTUNE_BINARY(lt_r, d, b, a < b)
      KTUNE_BINARY(le_r, d, b, a <= b)
      KTUNE_BINARY(gt_r, d, b, a > b)
      KTUNE_BINARY(ge_r, d, b, a >= b)
      KTUNE_BINARY(eq_b, b, b, a == b)
      KTUNE_BINARY(ne_b, b, b, a != b)
      KTUNE_BINARY(eq_s, s, b, *a == *b)
      KTUNE_BINARY(ne_s, s, b, *a != *b)
      KTUNE_BINARY(min_i, i, i, a < b ? a : b)
      KTUNE_BINARY(max_i, i, i, a < b ? b : a)
      KTUNE_BINARY(min_r, d, d, std::fmin(a, b))
      KTUNE_BINARY(max_r, d, d, std::fmax(a, b))
#undef KTUNE_BINARY
      case Op::div_i:
      case Op::mod_i: {
        const std::int64_t a = stack[sp - 1].i, b = stack[sp].i;
        if (b == 0) return false;
        if (b == -1) {  // INT64_MIN / -1 overflows; a / -1 is -a, a % -1 is 0
          stack[sp - 1].i = in.op == Op::div_i ? -a : 0;
        } else {
          stack[sp - 1].i = in.op == Op::div_i ? a / b : a % b;
        }
        --sp;
        break;
      }
      case Op::div_r:
      case Op::mod_r: {
        const double a = stack[sp - 1].d, b = stack[sp].d;
        if (b == 0) return false;
        stack[sp - 1].d = in.op == Op::div_r ? a / b : std::fmod(a, b);
        --sp;
        break;
      }
      case Op::abs_i: stack[sp].i = stack[sp].i < 0 ? -stack[sp].i : stack[sp].i; break;
      case Op::abs_r: stack[sp].d = std::fabs(stack[sp].d); break;
      case Op::jump_if_false_or_pop:
        if (!stack[sp].b) pc = static_cast<std::size_t>(in.arg) - 1;
        else --sp;
        break;
      case Op::jump_if_true_or_pop:
        if (stack[sp].b) pc = static_cast<std::size_t>(in.arg) - 1;
        else --sp;
        break;
    }
  }
  out = stack[sp];
  return true;
}

std::optional<Value> Expression::evaluate(const Scalar* slots) const {
  Scalar out{};
  if (!run(slots, out)) return std::nullopt;
  switch (type_) {
    case ExprType::integer: return Value(out.i);
    case ExprType::real: return Value(out.d);
    case ExprType::boolean: return Value(out.b);
    case ExprType::text: return Value(*out.s);
  }
  return std::nullopt;
}

bool Expression::test(const Scalar* slots) const {
  Scalar out{};
  if (!run(slots, out)) return false;
  return type_ == ExprType::boolean && out.b;
}

}  // namespace ktune
