#ifndef TINE_ANALYSIS_REGION_HPP
#define TINE_ANALYSIS_REGION_HPP

/// \file region.hpp
/// `tine::region`: names a part of a task for tine::analyze, which reports its work and span
/// apart. Outside an analysis it does nothing (one thread-local read at each end).
///
/// ```
/// tine::task<> build(tree& t) {
///   tine::region r("build tree");   // until the end of the scope
///   co_await tine::fork(build_left, t);
///   co_await tine::call(build_right, t);
///   co_await tine::join();
/// }
/// ```
/// A region begins and ends in one task, around whole fork-join scopes (its forks joined before
/// it ends, and no join of a scope opened before it began); regions nest like scopes. The task
/// may be called inside its caller's scope, and a region may hold no fork at all (a piece of a
/// strand). One that breaks the rule is reported in analysis::problems() rather than measured.
/// Regions of the same name add up (analysis::regions()).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <tine/analysis/span_recorder.hpp>

namespace tine {

class region {
 public:
  /// Begins region `name`: a string literal, or a string that outlives the analysis. Throws
  /// std::bad_alloc inside an analysis when memory is short.
  explicit region(const char* name) : m_name(name) {
    if (detail::span_recorder* r = detail::read_tls_recorder(); r != nullptr) {
      r->region_begin(name);
    }
  }

  region(const region&) = delete;
  region& operator=(const region&) = delete;

  ~region() {
    if (detail::span_recorder* r = detail::read_tls_recorder(); r != nullptr) {
      r->region_end(m_name);
    }
  }

 private:
  const char* m_name;
};

}  // namespace tine

#endif  // TINE_ANALYSIS_REGION_HPP
