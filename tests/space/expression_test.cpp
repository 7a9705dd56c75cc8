// Tests of the constraint expression language: values, precedence, types,
// short-circuit, and errors that point at the column.
#include <gtest/gtest.h>

#include "space/expression.hpp"
#include "space/space.hpp"

namespace ktune {
namespace {

Value eval(std::string_view text, const ValueMap& names = {}) {
  auto v = Expression::compile(text, names).evaluate();
  if (!v) throw std::runtime_error("division by zero");
  return *v;
}

std::int64_t I(std::int64_t v) { return v; }

/// The message of the ExpressionError thrown compiling `text`.
std::string error_of(std::string_view text, const ValueMap& names = {}) {
  try {
    Expression::compile(text, names);
  } catch (const ExpressionError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Expression, ArithmeticAndPrecedence) {
  EXPECT_EQ(eval("1 + 2 * 3"), Value(I(7)));
  EXPECT_EQ(eval("(1 + 2) * 3"), Value(I(9)));
  EXPECT_EQ(eval("7 / 2"), Value(I(3)));    // integer division truncates
  EXPECT_EQ(eval("-7 / 2"), Value(I(-3)));  // toward zero, as in C
  EXPECT_EQ(eval("-7 % 3"), Value(I(-1)));
  EXPECT_EQ(eval("7.0 / 2"), Value(3.5));   // a real makes it real
  EXPECT_EQ(eval("7.5 % 2"), Value(1.5));
  EXPECT_EQ(eval("- - 3"), Value(I(3)));
  EXPECT_EQ(eval("2 - 3 - 4"), Value(I(-5)));  // left associative
  EXPECT_EQ(eval("1e3 + .5"), Value(1000.5));
  EXPECT_EQ(eval("min(4, 2, 9) + max(1, 2.5) + abs(-3)"), Value(2 + 2.5 + 3));
}

TEST(Expression, ComparisonsAndLogic) {
  EXPECT_EQ(eval("1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3 && 1 != 2 && 2 == 2.0"), Value(true));
  EXPECT_EQ(eval("!(1 < 2) || false"), Value(false));
  EXPECT_EQ(eval("true == !false"), Value(true));
  EXPECT_EQ(eval("'bf16' == \"bf16\" && 'a' != 'b'"), Value(true));
  // && binds tighter than ||
  EXPECT_EQ(eval("true || false && false"), Value(true));
  EXPECT_EQ(eval("1 + 2 == 3 && 2 * 2 == 4"), Value(true));
}

TEST(Expression, NamesAndConstants) {
  ValueMap names{{"m", I(4096)}, {"dtype", std::string("bf16")}, {"alpha", 0.5}, {"fast", true}};
  EXPECT_EQ(eval("m % 128 == 0 && dtype == 'bf16' && alpha * 2 == 1 && fast", names), Value(true));
  const Expression e = Expression::compile("m + m + alpha", names);
  EXPECT_EQ(e.names(), (std::vector<std::string>{"m", "alpha"}));
  EXPECT_EQ(e.type(), ExprType::real);
}

TEST(Expression, SlotsAreReadAtEvaluation) {
  // Slot 0: integer parameter; slot 1: text parameter with its allowed values.
  const std::vector<Value> allowed{std::string("bf16"), std::string("fp16")};
  auto resolve = [&](std::string_view n) -> std::optional<ExprSymbol> {
    ExprSymbol s;
    if (n == "BM") {
      s.slot = 0;
      s.type = ExprType::integer;
    } else if (n == "DT") {
      s.slot = 1;
      s.type = ExprType::text;
      s.allowed = &allowed;
    } else {
      return std::nullopt;
    }
    return s;
  };
  const Expression e = Expression::compile("BM >= 64 && DT == 'bf16'", resolve);
  EXPECT_EQ(e.slots(), (std::vector<int>{0, 1}));
  Value bm = I(128), dt = std::string("bf16"), other = std::string("fp16");
  Scalar slots[2] = {to_scalar(bm), to_scalar(dt)};
  EXPECT_TRUE(e.test(slots));
  slots[1] = to_scalar(other);
  EXPECT_FALSE(e.test(slots));
  // A literal outside a categorical's values is a typo, caught at compile time.
  try {
    Expression::compile("DT == 'bf61'", resolve);
    FAIL();
  } catch (const ExpressionError& e2) {
    EXPECT_EQ(e2.column(), 7u);
    EXPECT_NE(std::string(e2.what()).find("'bf61' is not a value of 'DT' (bf16, fp16)"), std::string::npos)
        << e2.what();
  }
}

TEST(Expression, ShortCircuitAndDivisionByZero) {
  ValueMap k0{{"K", I(0)}}, k4{{"K", I(4)}};
  EXPECT_TRUE(Expression::compile("K == 0 || 16 / K > 2", k0).test());
  EXPECT_FALSE(Expression::compile("K != 0 && 16 / K > 2", k0).test());
  EXPECT_TRUE(Expression::compile("K != 0 && 16 / K > 2", k4).test());
  // Without a guard, division by zero makes the condition false.
  EXPECT_FALSE(Expression::compile("16 / K > 2", k0).test());
  EXPECT_FALSE(Expression::compile("16 % K == 0", k0).evaluate().has_value());
  EXPECT_FALSE(Expression::compile("1.0 / (K * 1.0) > 0", k0).test());
}

TEST(Expression, ParseErrorsPointAtTheColumn) {
  EXPECT_EQ(error_of("(1 + 2 == 3 && (4 > 2"), "column 22: expected ')', found end of expression");
  EXPECT_EQ(error_of("1 + * 2"), "column 5: expected a value, found '*'");
  EXPECT_EQ(error_of("1 = 2"), "column 3: unexpected '=' (write '==' to compare)");
  EXPECT_EQ(error_of("1 & 2"), "column 3: unexpected '&' (write '&&')");
  EXPECT_EQ(error_of("'abc"), "column 1: unterminated text literal");
  EXPECT_EQ(error_of("1 2"), "column 3: unexpected '2' (expected an operator or the end)");
  EXPECT_EQ(error_of("3 # 4"), "column 3: unexpected character '#'");
  EXPECT_EQ(error_of("12abc"), "column 3: unexpected 'a' after a number");
  EXPECT_EQ(error_of("99999999999999999999 > 1"), "column 1: integer '99999999999999999999' is too large");
  EXPECT_EQ(error_of(""), "column 1: expected a value, found the end of the expression");
}

TEST(Expression, NameAndTypeErrors) {
  ValueMap names{{"BM", I(64)}, {"dtype", std::string("bf16")}, {"fast", true}};
  EXPECT_EQ(error_of("BM % BLOK_M == 0", names), "column 6: unknown name 'BLOK_M'");
  EXPECT_EQ(error_of("pow(2, 3) > 1", names), "column 1: unknown function 'pow' (known: min, max, abs)");
  EXPECT_EQ(error_of("dtype + 1 > 0", names), "column 7: '+' needs numbers, got text 'dtype'");
  EXPECT_EQ(error_of("fast && BM", names), "column 6: '&&' needs conditions, got integer 'BM'");
  EXPECT_EQ(error_of("dtype == 3", names), "column 7: cannot compare text with integer using '=='");
  EXPECT_EQ(error_of("dtype < 'c'", names), "column 7: '<' needs numbers, got text 'dtype'");
  EXPECT_EQ(error_of("!BM", names), "column 1: '!' needs conditions, got integer 'BM'");
  EXPECT_EQ(error_of("min(3) > 1", names), "column 1: min takes two or more arguments");
  EXPECT_EQ(error_of("abs(1, 2) > 1", names), "column 8: abs takes one argument");
}

TEST(Expression, CopiesKeepTheirTextLiterals) {
  ValueMap names{{"dtype", std::string("bf16")}};
  std::vector<Expression> v;
  v.push_back(Expression::compile("dtype == 'bf16'", names));
  for (int k = 0; k < 20; ++k) v.push_back(v.back());  // reallocations move/copy the program
  for (const auto& e : v) EXPECT_TRUE(e.test());
}

TEST(Expression, SpaceErrorsNameTheConstraintAndTheKnownNames) {
  Space s(ValueMap{{"smem_max", I(1024)}});
  s.add(Parameter::pow2_range("BLOCK_M", 16, 128, 64));
  s.add(Parameter::categorical("DT", {"bf16", "fp16"}, "bf16"));
  try {
    s.require("BLOCK_M % WARP_M == 0");
    FAIL();
  } catch (const SpaceError& e) {
    EXPECT_EQ(std::string(e.what()),
              "constraint 'BLOCK_M % WARP_M == 0': column 11: unknown name 'WARP_M' "
              "(known: BLOCK_M, DT, smem_max)");
  }
  try {
    s.require("BLOCK_M * 2 <= smem_max && (DT == 'bf16'");
    FAIL();
  } catch (const SpaceError& e) {
    EXPECT_NE(std::string(e.what()).find("column 41: expected ')'"), std::string::npos) << e.what();
  }
  try {
    s.require("BLOCK_M * 2");
    FAIL();
  } catch (const SpaceError& e) {
    EXPECT_NE(std::string(e.what()).find("is integer, not a condition"), std::string::npos) << e.what();
  }
  EXPECT_THROW(s.require("DT == 'f16'"), SpaceError);
  s.require("DT == 'fp16' || BLOCK_M * 16 <= smem_max");
  EXPECT_EQ(s.count_valid(), 4u + 3u);  // fp16: every BLOCK_M; bf16: BLOCK_M * 16 <= 1024 keeps 16, 32, 64
}

}  // namespace
}  // namespace ktune
