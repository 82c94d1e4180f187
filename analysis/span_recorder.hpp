#ifndef TINE_ANALYSIS_SPAN_RECORDER_HPP
#define TINE_ANALYSIS_SPAN_RECORDER_HPP

/// \file span_recorder.hpp
/// How tine::analyze measures work and span: a worker backend (core/worker_backend.hpp) on the
/// one worker that runs the analysed computation, in serial order.
///
/// The recorder is offered every fork's continuation (`offer`), takes it, and gives it back when
/// the child returns (`take_back`); it marks every frame that forks as observed, so that its joins
/// and its end reach `observed` (a forked frame is unmarked at its join: its end is its parent's
/// `take_back`, which needs nothing more). Those are the points where chains of strands split and
/// meet; between two of them the worker runs one strand, which is timed. Each point becomes an
/// event (what happened, and how long the strand before it lasted), which `apply` turns into
/// chains: every frame that forked has a record on a stack, holding the chain that ends at its
/// current strand (`path`) and the longest chain through the children it forked since its last join
/// (`children`). In serial order:
/// - a fork ends the parent's strand; the child's chain starts where the parent's stands;
/// - a child's return gives its chain to the parent's `children` (a child's record, pushed at
///   the fork, lasts until then, also when its end was observed: the rest of its final step is
///   its chain's); the parent's continuation goes on from the fork (its burdened chain pays one
///   steal, as if a thief had taken it);
/// - a join takes the longer of `path` and `children`;
/// - a called task's end hands its chain to its caller, which goes on from there.
/// Tasks that never fork have no record: they are strands of their caller's chain. The work is
/// the sum of all strands; the span is the root's chain at its end.
///
/// A strand is timed by the processor's clock, less the time its thread spent off the processor
/// (preempted or asleep). Time the thread loses without knowing it (a virtual machine's
/// processor taken away by its host) cannot be told apart; against it, a computation can be run
/// several times and each strand's shortest time kept: the events are then stored (8 bytes
/// each) and applied after the last run. Single-threaded throughout.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstdint>
#include <string>
#include <vector>

#include <tine/analysis/analysis.hpp>
#include <tine/analysis/tick_clock.hpp>
#include <tine/core/worker_backend.hpp>
#include <tine/core/worker_context.hpp>

namespace tine::detail {

/// A chain of strands from the start of the run, in ticks.
struct strand_chain {
  std::uint64_t span = 0;
  std::uint64_t burdened = 0;  ///< with one steal's cost on each fork's continuation
  std::uint64_t strands = 0;   ///< strands on the plain chain
  std::uint64_t longest = 0;   ///< the plain chain's longest strand

  void extend(std::uint64_t d) noexcept {
    span += d;
    burdened += d;
    ++strands;
    longest = d > longest ? d : longest;
  }

  /// Where two chains meet (a join): the longer of each, the burdened ones apart (the
  /// burdened critical path may be another chain).
  void meet(const strand_chain& other) noexcept {
    if (other.span > span) {
      span = other.span;
      strands = other.strands;
      longest = other.longest;
    }
    burdened = other.burdened > burdened ? other.burdened : burdened;
  }
};

class span_recorder final : public worker_backend {
 public:
  /// Records on the worker it is installed on (bound to the calling thread), charging `burden`
  /// ticks per fork to the burdened span; `unit`: every strand lasts one tick (the graph's shape
  /// alone); `store`: keep the events, for runs to be compared (keep_shorter) before they are
  /// applied.
  span_recorder(std::uint64_t burden, bool unit, bool store) noexcept;

  /// Starts a run; the root is about to run.
  void start() noexcept;
  /// The root has ended.
  void stop() noexcept;
  /// After a second or later run with `store`: whether its events had the same kinds as the
  /// first run's; if so, each strand keeps the shorter of the two times.
  bool keep_shorter();
  /// Whether the run ended as it began: every fork returned, every record and region closed
  /// (false when a task left the worker in the middle of a scope).
  bool balanced() const noexcept;
  /// The measures, in seconds at `seconds_per_tick` (the stored events are applied first).
  analysis::measures finish(double seconds_per_tick);

  // worker_backend. No process boundary (the default): the analysed tasks run in this process,
  // in serial order, so forks obey stops and a sibling's exception as on a one-worker scheduler
  // (a fork that starts no child is not offered).
  bool offer(frame* parent, void* child, deque<frame*>& continuations) override;
  bool offers_at_every_fork() const noexcept override { return true; }
  frame* take_back() noexcept override;
  void observed(frame* f, bool at_end) noexcept override;

  /// tine::region: begins region `name` (a string that outlives the analysis) in the running
  /// strand. Throws std::bad_alloc.
  void region_begin(const char* name);
  /// Ends the newest region begun, which must be `name`.
  void region_end(const char* name) noexcept;

 private:
  /// What happened at the end of a strand (the event's top four bits).
  enum class point : std::uint8_t {
    fork,          ///< a frame forked again
    first_fork,    ///< a frame forked for the first time: it gets a record
    child_return,  ///< a forked child returned to its parent
    join,          ///< a frame that forked passed a join
    fork_end,      ///< a forked child that forked reached its end
    call_end,      ///< a called task (or the root) that forked reached its end
    region_begin,  ///< a region began (id in the event)
    region_end,    ///< a region ended and is measured
    region_drop,   ///< a region ended and is not measured (a problem was noted)
    run_end,       ///< the run's last strand
  };
  static constexpr unsigned point_shift = 60;
  static constexpr unsigned id_shift = 40;
  static constexpr std::uint64_t tick_mask = (std::uint64_t{1} << id_shift) - 1;
  static constexpr std::uint64_t id_mask = (std::uint64_t{1} << (point_shift - id_shift)) - 1;

  struct record {
    strand_chain path;      ///< the chain ending at the frame's current strand
    strand_chain children;  ///< the longest chain through children forked since the last join
  };
  struct open_region {
    std::uint64_t work;
    strand_chain path;
  };
  struct region_totals {
    const char* name;
    std::size_t count = 0;
    std::uint64_t work = 0;
    std::uint64_t span = 0;
    std::uint64_t burdened = 0;
  };
  /// A region as the run saw it, for the checks that it ends where it began: the newest record
  /// then (`depth` records, the last one `f`'s), the forks and joins made so far, and whether
  /// `f` had forked children not yet joined.
  struct region_site {
    std::uint32_t id;
    std::size_t depth;
    frame* f;
    std::uint64_t steps;
    bool in_scope;
  };

  /// The running strand ends at `p` (region `id`): its event is applied or stored.
  void strand_ends(point p, std::uint32_t id = 0) noexcept;
  /// `d`, the ticks of a long strand that ended at `now`, less the thread's time off the
  /// processor since the last check.
  std::uint64_t on_cpu(std::uint64_t now, std::uint64_t d) noexcept;
  /// The chains' arithmetic for one event.
  void apply(point p, std::uint32_t id, std::uint64_t d) noexcept;
  std::uint32_t region_id(const char* name);
  /// The chains, work and region totals back to nothing.
  void reset_chains() noexcept;
  void note(std::string problem) noexcept;

  /// A strand's time off the processor is not its own: a strand longer than this is checked
  /// against the thread's processor time.
  static constexpr double long_strand_seconds = 4e-6;

  std::uint64_t m_burden;
  bool m_unit;
  bool m_store;
  double m_seconds_per_tick;
  std::uint64_t m_long;       ///< long_strand_seconds in ticks
  std::uint64_t m_last = 0;   ///< ticks when the running strand began
  std::uint64_t m_check = 0;  ///< ticks at the last check of the processor time
  double m_check_cpu = 0;     ///< the thread's processor time then

  // The run's structure: the frames with records (null: the root before its first fork), the
  // continuations taken at forks, the open regions. Kept while the events are only stored.
  std::vector<frame*> m_frames;
  /// For each of m_frames, the number of its last fork or join among the run's (0: none yet).
  std::vector<std::uint64_t> m_last_step;
  std::uint64_t m_steps = 0;  ///< forks and joins so far in this run
  std::vector<frame*> m_held;
  std::vector<region_site> m_sites;
  std::uint64_t m_forks = 0;
  std::uint64_t m_joins = 0;

  // The stored events: the first run's, and the run being made.
  std::vector<std::uint64_t> m_events;
  std::vector<std::uint64_t> m_again;
  bool m_first_run = true;

  // The chains.
  std::uint64_t m_work = 0;
  std::vector<record> m_records;
  std::vector<open_region> m_regions;
  std::vector<region_totals> m_totals;
  std::vector<std::string> m_problems;
};

/// The recorder of the analysis running on the calling thread (null: none). Read inside tasks
/// only through read_tls_recorder() (see TINE_TLS_ACCESSOR).
inline thread_local span_recorder* tls_recorder = nullptr;

TINE_TLS_ACCESSOR span_recorder* read_tls_recorder() noexcept { return tls_recorder; }

}  // namespace tine::detail

#endif  // TINE_ANALYSIS_SPAN_RECORDER_HPP
