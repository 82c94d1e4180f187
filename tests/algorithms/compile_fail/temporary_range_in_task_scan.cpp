// EXPECT: Name the range
#include <vector>

#include <tine/algorithms/scan.hpp>

tine::task<void> misuse(std::vector<long>* out) {
  std::vector<long>::iterator end;
  co_await tine::call(&end, tine::async::inclusive_scan, std::vector<long>(10, 1), out->begin());
  co_await tine::join();
}
