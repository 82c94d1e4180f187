// The replaced operator new and delete of //tests:failing_new (see failing_new.hpp).
#include "tests/failing_new.hpp"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace {

// relaxed throughout: one count shared by every thread; which thread's call is the n-th is up
// to the run, and the test reads the count only after the work it measured has ended.
std::atomic<bool> g_armed{false};
std::atomic<long> g_calls{0};
std::atomic<long> g_fail_at{0};

bool fail_now() noexcept {
  if (!g_armed.load(std::memory_order_relaxed)) {
    return false;
  }
  return g_calls.fetch_add(1, std::memory_order_relaxed) + 1 ==
         g_fail_at.load(std::memory_order_relaxed);
}

void* allocate(std::size_t n, std::size_t align) noexcept {
  if (fail_now()) {
    return nullptr;
  }
  if (n == 0) {
    n = 1;
  }
  if (align <= alignof(std::max_align_t)) {
    return std::malloc(n);
  }
  return std::aligned_alloc(align, (n + align - 1) / align * align);
}

}  // namespace

namespace tine_tests::failing_new {

void arm(long n) noexcept {
  g_calls.store(0, std::memory_order_relaxed);
  g_fail_at.store(n, std::memory_order_relaxed);
  g_armed.store(true, std::memory_order_relaxed);
}

long disarm() noexcept {
  g_armed.store(false, std::memory_order_relaxed);
  return g_calls.load(std::memory_order_relaxed);
}

}  // namespace tine_tests::failing_new

void* operator new(std::size_t n) {
  if (void* p = allocate(n, 0)) {
    return p;
  }
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, std::align_val_t a) {
  if (void* p = allocate(n, static_cast<std::size_t>(a))) {
    return p;
  }
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) { return operator new(n, a); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, 0); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, 0); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, static_cast<std::size_t>(a));
}
// Not inlined: GCC 12 inlines them into callers of operator new and then warns that free() is
// paired with operator new (-Wmismatched-new-delete), which is what a replacement does.
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete[](void* p, std::align_val_t,
                                         const std::nothrow_t&) noexcept {
  std::free(p);
}
