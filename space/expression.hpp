// Expression: the constraint language of a space, compiled once into a small
// typed stack program that runs without parsing or name lookups.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "space/parameter.hpp"
#include "space/value.hpp"
#include "space/value_map.hpp"

namespace ktune {

/// A parse, name or type error in an expression. `column()` is 1-based (0 when
/// the error concerns the whole expression); the message starts with
/// "column N: " when there is a column.
class ExpressionError : public SpaceError {
 public:
  ExpressionError(const std::string& message, std::size_t column);
  std::size_t column() const { return column_; }
  /// The message without the "column N: " prefix.
  const std::string& detail() const { return detail_; }

 private:
  std::size_t column_;
  std::string detail_;
};

/// Static types of the language. Integers and reals mix in arithmetic (the
/// result is real); booleans and text never turn into numbers.
enum class ExprType { integer, real, boolean, text };
std::string_view to_string(ExprType t);
/// The type of a value (int64 -> integer, double -> real, ...).
ExprType type_of(const Value& v);

/// One value at evaluation time. The compiled program knows each slot's type,
/// so no tag is stored. Text points at a string that outlives the evaluation.
union Scalar {
  std::int64_t i;
  double d;
  bool b;
  const std::string* s;
};
/// The Scalar viewing a Value (text points into `v`).
Scalar to_scalar(const Value& v);

/// What an identifier means: a slot read at evaluation time, or a constant
/// folded into the program.
struct ExprSymbol {
  ExprType type = ExprType::integer;
  int slot = -1;                ///< >= 0: read slots[slot] at evaluation
  Value constant;               ///< used when slot < 0
  /// For text slots: the values the slot can take. Comparing the slot with a
  /// string literal outside this list is a compile error (a typo, surely).
  const std::vector<Value>* allowed = nullptr;
};
/// Maps an identifier to its symbol; nullopt for an unknown name.
using ExprResolver = std::function<std::optional<ExprSymbol>(std::string_view name)>;

/// A compiled expression.
///
/// Grammar (lowest precedence first; C-like):
///   or     := and ( '||' and )*
///   and    := cmp ( '&&' cmp )*
///   cmp    := sum ( ('=='|'!='|'<'|'<='|'>'|'>=') sum )*
///   sum    := prod ( ('+'|'-') prod )*
///   prod   := unary ( ('*'|'/'|'%') unary )*
///   unary  := ('-'|'!') unary | primary
///   primary:= INT | REAL | 'text' | "text" | true | false | NAME
///           | FUNC '(' or (',' or)* ')' | '(' or ')'
///   FUNC   := min | max (two or more numbers) | abs (one number)
/// Integer `/` truncates toward zero and `%` takes the sign of the dividend,
/// as in C; a real operand makes the operation real (fmod for `%`). Division
/// or modulo by zero makes a condition false. `&&` and `||` short-circuit.
/// `<`-style comparisons take numbers; `==`/`!=` take two numbers, two
/// booleans or two texts.
class Expression {
 public:
  /// Throws ExpressionError with the column of the problem.
  static Expression compile(std::string_view text, const ExprResolver& resolve);
  /// Every identifier is a constant of `names` (handy for tests and tools).
  static Expression compile(std::string_view text, const ValueMap& names);

  const std::string& text() const { return text_; }
  ExprType type() const { return type_; }
  /// Identifiers read (parameters and constants), in order of first use.
  const std::vector<std::string>& names() const { return names_; }
  /// Slots read, sorted, each once.
  const std::vector<int>& slots() const { return slots_; }

  /// Runs the program; nullopt on division or modulo by zero.
  std::optional<Value> evaluate(const Scalar* slots = nullptr) const;
  /// For a boolean expression: whether it holds (false on division by zero).
  bool test(const Scalar* slots = nullptr) const;

  enum class Op : std::uint8_t;
  struct Instruction {
    Op op;
    std::int32_t arg = 0;  ///< slot, jump target, index of a literal text
    Scalar value{};        ///< numeric or boolean literal
  };

 private:
  friend class ExpressionParser;
  bool run(const Scalar* slots, Scalar& out) const;

  std::string text_;
  ExprType type_ = ExprType::boolean;
  std::vector<std::string> names_;
  std::vector<int> slots_;
  std::vector<Instruction> code_;
  std::vector<std::string> strings_;  ///< literal texts, referred to by index so copies stay valid
  int max_depth_ = 0;
};

}  // namespace ktune
