//===- Autotune.cpp - Timing candidate kernels, keeping the fastest -------===//

#include "spio/Kernels/Autotune.h"

#include <algorithm>

using namespace spio;
using namespace spio::kernels;

runtime::Result<std::vector<double>>
kernels::timeCandidates(const runtime::Cuda &cuda,
                        const std::vector<std::function<runtime::Status()>> &launches,
                        runtime::Timing timing) {
  constexpr int kRounds = 5, kLaunchesTimed = 3;
  for (const std::function<runtime::Status()> &launch : launches)
    if (runtime::Status launched = launch(); !launched)
      return launched.error();
  std::vector<std::vector<float>> times(launches.size());
  for (int round = 0; round < kRounds; ++round)
    for (size_t i = 0; i < launches.size(); ++i) {
      auto body = [&]() -> runtime::Status {
        for (int k = 0; k < kLaunchesTimed; ++k)
          if (runtime::Status launched = launches[i](); !launched)
            return launched;
        return runtime::success();
      };
      runtime::Result<float> ms = cuda.timeMs(body, timing);
      if (!ms)
        return ms.error();
      times[i].push_back(*ms / kLaunchesTimed);
    }
  std::vector<double> medians;
  for (std::vector<float> &t : times) {
    std::sort(t.begin(), t.end());
    medians.push_back(t[t.size() / 2]);
  }
  return medians;
}

size_t kernels::fastestCandidate(const std::vector<double> &times) {
  return size_t(std::min_element(times.begin(), times.end()) - times.begin());
}
