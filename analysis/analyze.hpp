#ifndef TINE_ANALYSIS_ANALYZE_HPP
#define TINE_ANALYSIS_ANALYZE_HPP

/// \file analyze.hpp
/// `tine::analyze(fn, args...)` and `tine::analyzer`: run tasks on the calling thread, in serial
/// order, measuring their work, span and burdened span (analysis.hpp), to tell how far they will
/// scale on more cores than this machine has.
///
/// ```
/// tine::analysis a = tine::analyze(fib, 30);
/// a.print(std::cout);                     // table, where the span is spent, predicted speed-ups
/// a.write_html("fib-scaling.html");       // the curve, offline
///
/// tine::analyzer an;                      // a scheduler: code written against one is analysed
/// double s = tine::reduce(an, values, 0.0, std::plus<>{});
/// an.result().print(std::cout);
/// ```
/// The tasks run as on a one-worker scheduler: forks, calls, joins, stack allocations,
/// exceptions, stops, reducers and tine's algorithms work as anywhere, and as there a fork after a
/// sibling threw, or after its stop scope or root was asked to stop (tine::request_stop inside a
/// task), starts no child (and is not in the graph). They must stay on the calling
/// thread: submitting work to the analyzer from inside (resume_on, spawn, awaiting a future that
/// resumes through it) ends the program with a message; a task that moves to another scheduler
/// is measured only while it runs here. Timing
/// every strand makes a run slower than an uninstrumented one
/// (bench/journal/2026-11-28-scalability-analysis.md gives the measured factors); the measures are
/// each strand's own time, less the time its thread spent off the processor.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <concepts>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include <tine/analysis/analysis.hpp>
#include <tine/core/callable_check.hpp>
#include <tine/core/concepts.hpp>
#include <tine/core/submit_node.hpp>
#include <tine/core/sync_wait.hpp>

namespace tine {

/// How tine::analyze and tine::analyzer run and measure.
struct analysis_options {
  /// What the report calls the computation.
  std::string name = "analysis";
  /// Seconds charged per fork's continuation in the burdened span (what a steal costs); negative:
  /// measured on this machine (tine::measure_steal_cost, once per process; a figure that cannot
  /// be trusted comes with a warning in the report). Give another machine's figure to predict
  /// for it.
  double steal_cost = -1;
  /// What tine::current_worker_count() answers inside the run, which tine's algorithms size
  /// their grain by: the machine the prediction is for. 0: this machine's hardware threads.
  std::size_t workers = 0;
  /// Count strands instead of timing them: every strand (what runs between two forks, returns or
  /// joins) lasts one unit, and the measures, in units rather than seconds, describe the graph's
  /// shape alone, the same on every run. steal_cost is then in units too (negative: 0).
  bool unit_strands = false;
  /// More than 1: keep each strand's shortest time over the runs (tine::analyze makes this many;
  /// each root an analyzer runs is one), against noise the thread cannot see, such as a virtual
  /// machine's processor taken by its host. The events are then stored, 8 bytes per fork,
  /// return and join, and applied when the result is asked for. Every run must have the same
  /// graph (make the task copy its input rather than change it); runs whose graph differs from
  /// the first are not used, and a problem says so.
  int repeats = 1;
};

/// What measure_steal_cost() found, and how far to trust it. Rounds of a fork whose continuation
/// another thread steals, up to the join, are timed in batches, each with two fresh threads; a
/// batch's figure is the median of its 21 fastest rounds (rounds in which both threads ran: on a
/// busy machine most do not, and show the load instead). Batches are made until the two lowest
/// figures agree within 1.5x (three at least, ten at most, in about two seconds at most).
struct steal_cost_measurement {
  double seconds = 0;  ///< the lowest batch figure: what one steal costs
  /// The second lowest batch figure over the lowest: how well the figure was confirmed (at most
  /// 1.5 when trusted).
  double agreement = 1;
  /// The highest batch figure over the lowest (1: all agreed; on a busy machine some batches
  /// time the load, and this is large).
  double spread = 1;
  int batches = 0;         ///< batches made
  std::size_t rounds = 0;  ///< rounds timed in all
  /// Empty when the figure can be trusted: two batches agreed within 1.5x, on a figure below
  /// 100 us (no steal between two running threads of one machine costs that much; such
  /// figures mean the two threads seldom ran at once). Otherwise why not, in a sentence.
  std::string warning;
};

/// What one steal costs on this machine, in seconds (measure_steal_cost_details().seconds).
double measure_steal_cost();

/// The measurement measure_steal_cost() returns, made once per process (in tens of milliseconds
/// on an idle machine, up to two seconds on a busy one).
const steal_cost_measurement& measure_steal_cost_details();

namespace detail {
/// A new measurement, every call (for tests; tine::analyze uses the process's one).
steal_cost_measurement measure_steal_cost_now();
}  // namespace detail

/// A scheduler that runs each root submitted to it at once on the submitting thread (which
/// blocks until it is done: sync_wait's) and measures it. Unlike tine's other schedulers it
/// runs roots inline, and only roots: see the file comment.
class analyzer {
 public:
  /// Throws std::bad_alloc.
  explicit analyzer(analysis_options options = {});
  ~analyzer();
  analyzer(const analyzer&) = delete;
  analyzer& operator=(const analyzer&) = delete;

  /// Runs `node` (a root: sync_wait's or a blocking algorithm's) on the calling thread, which
  /// must not be a worker, and returns when its tasks are done or have left. A call from inside
  /// an analysed task, or while another thread runs a root here, ends the program with a message.
  void schedule(submit_node* node);

  /// The measures of the roots run so far: the last one's, or, with options.repeats above 1,
  /// each strand's shortest time over the runs with the first one's graph.
  analysis result() const;

 private:
  struct state;
  state* m;
};

static_assert(scheduler<analyzer>);

/// Runs `fn(args...)` (a task; the arguments passed as lvalues, the same objects on every run)
/// options.repeats times on the calling thread and measures its fork-join graph. Rethrows the
/// task's exception; throws std::logic_error on a worker thread.
template <typename F, typename... Args>
analysis analyze(const analysis_options& options, F&& fn, Args&&... args) {
  if constexpr (detail::check_task_function<detail::entry::sync_wait, void, F&, Args&...>()) {
    analyzer an(options);
    for (int i = 0; i < options.repeats || i == 0; ++i) {
      (void)sync_wait(an, fn, args...);
    }
    return an.result();
  } else {
    detail::explain_refusal<F, Args...>();
    return analysis{};
  }
}

/// As analyze(options, fn, args...) with the default options.
template <typename F, typename... Args>
  requires(!std::same_as<std::remove_cvref_t<F>, analysis_options>)
analysis analyze(F&& fn, Args&&... args) {
  return analyze(analysis_options{}, std::forward<F>(fn), std::forward<Args>(args)...);
}

}  // namespace tine

#endif  // TINE_ANALYSIS_ANALYZE_HPP
