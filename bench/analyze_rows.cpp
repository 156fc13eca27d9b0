// Times refbench's analysis alone, in memory: reads a pairs CSV (the one
// `refbench analyze` takes), marks every metric gated and runs
// analysis::analyze over it `repeats` times. Prints the median seconds of
// one analysis and the number of results; bench/analyze-speed.sh compares
// the figure with scipy's on the same data.
#include <refbench/analysis/analysis.hpp>
#include <refbench/analysis/inputs.hpp>
#include <refbench/util/files.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  using namespace refbench;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PAIRS.csv [REPEATS]\n", argv[0]);
    return 2;
  }
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  auto text = util::read_file(argv[1]);
  if (!text) {
    std::fprintf(stderr, "%s\n", text.error().c_str());
    return 1;
  }
  auto cells = analysis::parse_pairs_csv(*text, argv[1], "cell", analysis::Direction::lower_is_better);
  for (auto& cell : cells) {
    for (auto& metric : cell.metrics) {
      metric.gated = true;
    }
  }
  std::vector<double> seconds;
  std::size_t results = 0;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    results = analysis::analyze(cells, analysis::Settings{}).size();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(seconds.begin(), seconds.begin() + repeats / 2, seconds.end());
  std::printf("%.6f %zu\n", seconds[static_cast<std::size_t>(repeats / 2)], results);
}
