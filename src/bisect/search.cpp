#include <refbench/bisect/search.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace refbench::bisect {

double floor_of(const std::optional<Reading>& control) {
  if (!control) {
    return 0;
  }
  if (!std::isfinite(control->low) || !std::isfinite(control->high)) {
    return std::numeric_limits<double>::infinity();
  }
  return std::max(std::abs(control->low), std::abs(control->high));
}

Move judge_move(const Reading& reading, const std::optional<Reading>& control, int sign, double threshold_log,
                std::size_t needed) {
  if (!std::isfinite(reading.low) || !std::isfinite(reading.high) || reading.n < needed ||
      (control && control->n < needed)) {
    return Move::unclear;
  }
  // the interval turned so that the move looked for is upwards
  const double near = sign > 0 ? reading.low : -reading.high;
  const double far = sign > 0 ? reading.high : -reading.low;
  if (near > 0 && near > floor_of(control)) {
    return Move::clear;
  }
  if (far < threshold_log) {
    return Move::none;
  }
  return Move::unclear;
}

Side side_of(const Reading& mid, const Reading& bad, const std::optional<Reading>& control, std::size_t needed) {
  const int sign = bad.estimate > 0 ? 1 : -1;
  if (judge_move(bad, control, sign, 0, needed) != Move::clear) { // this step's rounds do not show the move
    return Side::unclear;
  }
  if (mid.n < needed) {
    return Side::unclear;
  }
  const double half = bad.estimate / 2;
  const bool worse_up = bad.estimate > 0;
  const double near_end = worse_up ? mid.low : -mid.high; // the interval's end nearest the good end
  const double far_end = worse_up ? mid.high : -mid.low;
  const double h = std::abs(half);
  if (near_end > h) {
    return Side::bad;
  }
  if (far_end < h) {
    return Side::good;
  }
  return Side::unclear;
}

std::optional<std::size_t> Outcome::culprit() const {
  if (ambiguous) {
    return std::nullopt;
  }
  for (std::size_t i = good + 1; i < bad; ++i) {
    if (std::find(skipped.begin(), skipped.end(), i) != skipped.end()) {
      return std::nullopt; // a skipped commit between: the culprit is one of a range
    }
  }
  return bad;
}

std::optional<std::size_t> midpoint(std::size_t good, std::size_t bad, const std::vector<std::size_t>& skipped) {
  std::optional<std::size_t> best;
  const double middle = (static_cast<double>(good) + static_cast<double>(bad)) / 2;
  for (std::size_t i = good + 1; i < bad; ++i) {
    if (std::find(skipped.begin(), skipped.end(), i) != skipped.end()) {
      continue;
    }
    if (!best || std::abs(static_cast<double>(i) - middle) < std::abs(static_cast<double>(*best) - middle)) {
      best = i;
    }
  }
  return best;
}

double step_confidence(std::size_t count, double error) {
  const double k = count > 2 ? std::ceil(std::log2(static_cast<double>(count - 1))) : 1.0;
  return 1 - 2 * error / k;
}

Outcome search(std::size_t count, Oracle& oracle) {
  Outcome out;
  out.good = 0;
  out.bad = count - 1;
  while (true) {
    const auto mid = midpoint(out.good, out.bad, out.skipped);
    if (!mid) {
      return out;
    }
    if (!oracle.build(*mid)) {
      out.skipped.push_back(*mid);
      continue;
    }
    Step step{out.good, out.bad, *mid, oracle.measure(out.good, *mid, out.bad), Side::unclear};
    step.side = side_of(step.measured.mid, step.measured.bad, step.measured.control, step.measured.needed);
    while (step.side == Side::unclear) {
      auto more = oracle.measure_more(out.good, *mid, out.bad);
      if (!more) {
        break;
      }
      step.measured = *more;
      ++step.more;
      step.side = side_of(step.measured.mid, step.measured.bad, step.measured.control, step.measured.needed);
    }
    out.steps.push_back(step);
    if (step.side == Side::unclear) {
      out.ambiguous = true;
      return out;
    }
    (step.side == Side::good ? out.good : out.bad) = *mid;
  }
}

} // namespace refbench::bisect
