//===- SpecialFunctions.cpp - math functions the C++ library lacks -------===//
//
// This file implements the special functions of SpecialFunctions.h: each
// from its defining series or recurrence, refined in double precision.
//
//===----------------------------------------------------------------------===//

#include "kiln/Interpreter/SpecialFunctions.h"

#include <cmath>
#include <limits>

using namespace kiln::interp;

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
} // namespace

double kiln::interp::erfInv(double y) {
  if (std::isnan(y) || y < -1 || y > 1)
    return kNaN;
  if (y == 1)
    return kInf;
  if (y == -1)
    return -kInf;
  if (y == 0)
    return y;
  // A first guess from Winitzki's approximation, then Newton's method on
  // erf(x) - y, whose derivative is 2/sqrt(pi) exp(-x^2).
  double w = -std::log((1 - y) * (1 + y)); // -ln(1 - y^2)
  double a = 0.147;
  double term = 2 / (kPi * a) - w / 2;
  double x = std::copysign(std::sqrt(std::sqrt(term * term + w / a) - term), y);
  for (int i = 0; i < 8; ++i) {
    double error = std::erf(x) - y;
    double step = error / (2 / std::sqrt(kPi) * std::exp(-x * x));
    x -= step;
    if (std::fabs(step) <= 1e-17 * std::fabs(x))
      break;
  }
  return x;
}

double kiln::interp::digamma(double x) {
  if (std::isnan(x) || x == -kInf)
    return kNaN;
  if (x <= 0 && x == std::floor(x))
    return kNaN; // poles at 0, -1, -2, ...
  double result = 0;
  // Reflection for negative arguments: psi(1-x) - psi(x) = pi cot(pi x).
  if (x < 0) {
    result -= kPi / std::tan(kPi * x);
    x = 1 - x;
  }
  // Recurrence up to where the asymptotic series is accurate.
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  double inverse = 1 / x, inverse2 = inverse * inverse;
  // psi(x) ~ ln x - 1/(2x) - sum B_2k / (2k x^2k).
  double series =
      inverse2 *
      (1.0 / 12 -
       inverse2 * (1.0 / 120 -
                   inverse2 * (1.0 / 252 -
                               inverse2 * (1.0 / 240 -
                                           inverse2 * (1.0 / 132)))));
  return result + std::log(x) - 0.5 * inverse - series;
}

double kiln::interp::hurwitzZeta(double s, double q) {
  if (std::isnan(s) || std::isnan(q))
    return kNaN;
  if (s == 1)
    return kInf;
  if (s < 1)
    return kNaN;
  if (q <= 0) {
    if (q == std::floor(q))
      return kInf;
    return kNaN; // not defined by CHLO for negative non-integer q
  }
  // Euler-Maclaurin: sum the first N terms, then the integral and the
  // Bernoulli corrections of the tail.
  const int n = 9;
  double sum = 0;
  for (int k = 0; k < n; ++k)
    sum += std::pow(q + k, -s);
  double a = q + n;
  sum += std::pow(a, 1 - s) / (s - 1) + 0.5 * std::pow(a, -s);
  static const double kBernoulli[] = {1.0 / 6,   -1.0 / 30,  1.0 / 42,
                                      -1.0 / 30, 5.0 / 66,   -691.0 / 2730,
                                      7.0 / 6,   -3617.0 / 510};
  double factor = s * std::pow(a, -s - 1); // s (s+1) ... / (2k)! a^(-s-2k+1)
  double factorial = 2;                    // (2k)!
  for (int k = 1; k <= 8; ++k) {
    double term = kBernoulli[k - 1] / factorial * factor;
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum))
      break;
    factor *= (s + 2 * k - 1) * (s + 2 * k) / (a * a);
    factorial *= (2 * k + 1) * (2 * k + 2);
  }
  return sum;
}

double kiln::interp::polygamma(double n, double x) {
  if (std::isnan(n) || std::isnan(x) || n < 0 || n != std::floor(n))
    return kNaN;
  if (n == 0)
    return digamma(x);
  // psi^(n)(x) = (-1)^(n+1) n! zeta(n+1, x).
  double factorial = std::tgamma(n + 1);
  double sign = std::fmod(n, 2) == 0 ? -1 : 1;
  return sign * factorial * hurwitzZeta(n + 1, x);
}

double kiln::interp::besselI1e(double x) {
  if (std::isnan(x))
    return kNaN;
  double ax = std::fabs(x);
  double result;
  if (ax < 600) {
    result = std::cyl_bessel_i(1.0, ax) * std::exp(-ax);
  } else {
    // I1(x) e^-x ~ 1/sqrt(2 pi x) (1 - 3/(8x) - 15/(128 x^2) - ...).
    double inverse = 1 / ax;
    result = (1 - 0.375 * inverse - 0.1171875 * inverse * inverse) /
             std::sqrt(2 * kPi * ax);
  }
  return x < 0 ? -result : result;
}
