#ifndef TINE_CORE_STOP_FORWARDING_HPP
#define TINE_CORE_STOP_FORWARDING_HPP

/// \file stop_forwarding.hpp
/// `stop_forwarding<F>`: a `std::stop_callback<F>` that may or may not be registered, for the
/// places that pass a stop on for a while (a root spawned or waited for with a token, a future a
/// task awaits). Not `std::optional<std::stop_callback<F>>`: GCC 12 warns at -O2 that such an
/// optional's token "may be used uninitialized" where it is not, and tine builds with -Werror.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <memory>
#include <new>
#include <stop_token>
#include <utility>

namespace tine::detail {

template <typename F>
class stop_forwarding {
 public:
  stop_forwarding() noexcept = default;
  stop_forwarding(const stop_forwarding&) = delete;
  stop_forwarding& operator=(const stop_forwarding&) = delete;
  ~stop_forwarding() { reset(); }

  /// Registers `f` on `token`; runs it at once, on this thread, if the token is already stopped.
  void link(const std::stop_token& token, F f) noexcept {
    reset();
    ::new (static_cast<void*>(m_storage)) std::stop_callback<F>(token, std::move(f));
    m_linked = true;
  }

  /// Unregisters it; if it runs on another thread at this moment, waits for it to return.
  void reset() noexcept {
    if (m_linked) {
      m_linked = false;
      std::destroy_at(std::launder(reinterpret_cast<std::stop_callback<F>*>(m_storage)));
    }
  }

 private:
  alignas(std::stop_callback<F>) unsigned char m_storage[sizeof(std::stop_callback<F>)];
  bool m_linked = false;
};

}  // namespace tine::detail

#endif  // TINE_CORE_STOP_FORWARDING_HPP
