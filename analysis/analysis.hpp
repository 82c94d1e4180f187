#ifndef TINE_ANALYSIS_ANALYSIS_HPP
#define TINE_ANALYSIS_ANALYSIS_HPP

/// \file analysis.hpp
/// `tine::analysis`: what tine::analyze measured of a computation's fork-join graph, and what it
/// predicts for more workers than the machine has.
///
/// The quantities (Cilk's work/span model, as in Cilkview and Cilkscale):
/// - *work* T1: the time of all strands together (what one worker takes, without tine);
/// - *span* T∞: the longest chain of strands that depend on each other;
/// - *burdened span*: the span when each fork's continuation costs one steal, `steal_cost()`,
///   as it would if a thief took it: what continuation stealing really pays on the chain;
/// - *parallelism* T1/T∞: no number of workers gives a greater speed-up.
///
/// The predicted speed-up on P workers (`speedup(P)`) is Graham's bound for greedy schedulers,
/// T_P <= T1/P + (1 - 1/P) T∞, with the burdened span in place of the span:
/// T1 / (T1/P + (1 - 1/P) burdened span). `speedup_bound(P)` is the work and span laws' ceiling,
/// min(P, T1/T∞). Times are in seconds.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace tine {

/// A named region's totals (tine::region) over the times it ran.
struct region_summary {
  std::string name;
  std::size_t count = 0;     ///< times it ran
  double work = 0;           ///< seconds, summed over its runs
  double span = 0;           ///< seconds, summed over its runs (as if they ran one after another)
  double burdened_span = 0;  ///< likewise, with the steal cost on each fork's continuation
  /// work / span: the region's parallelism (0 for an empty region).
  double parallelism() const noexcept { return span > 0 ? work / span : 0; }
};

/// What tine::analyze measured; see the file comment for the model.
class analysis {
 public:
  /// What tine::analyze fills in (seconds).
  struct measures {
    std::string name;         ///< what was analysed (analysis_options::name)
    bool units = false;       ///< counted in strands, not seconds (analysis_options::unit_strands)
    int runs = 1;             ///< runs whose strands' shortest times were kept
    std::size_t workers = 0;  ///< the workers tine's algorithms sized their grain for
    double work = 0;
    double span = 0;
    double burdened_span = 0;
    double steal_cost = 0;             ///< the cost charged per fork in the burdened span
    bool steal_cost_measured = false;  ///< measured on this machine (else given by the caller)
    /// When measured (tine::steal_cost_measurement): its batches, the second lowest figure over
    /// the lowest, and the highest over the lowest.
    int steal_cost_batches = 0;
    double steal_cost_agreement = 0;
    double steal_cost_spread = 0;
    std::uint64_t forks = 0;             ///< forks in the run
    std::uint64_t joins = 0;             ///< explicit joins of frames that forked
    std::uint64_t critical_strands = 0;  ///< strands on the (unburdened) longest chain
    double longest_strand = 0;           ///< the longest strand on that chain
    std::vector<region_summary> regions;
    std::vector<std::string> problems;  ///< regions that could not be measured, and why
    /// What makes the prediction doubtful, in sentences (a steal cost that could not be measured
    /// reliably on this machine).
    std::vector<std::string> warnings;
  };

  analysis() = default;
  explicit analysis(measures m) : m(std::move(m)) {}

  const std::string& name() const noexcept { return m.name; }
  double work() const noexcept { return m.work; }
  double span() const noexcept { return m.span; }
  double burdened_span() const noexcept { return m.burdened_span; }
  double steal_cost() const noexcept { return m.steal_cost; }
  std::uint64_t forks() const noexcept { return m.forks; }
  std::uint64_t joins() const noexcept { return m.joins; }
  const measures& raw() const noexcept { return m; }

  /// work / span.
  double parallelism() const noexcept { return m.span > 0 ? m.work / m.span : 1; }
  /// work / burdened span.
  double burdened_parallelism() const noexcept {
    return m.burdened_span > 0 ? m.work / m.burdened_span : 1;
  }

  /// The predicted speed-up on `p` workers: T1 / (T1/p + (1 - 1/p) burdened span).
  double speedup(std::size_t p) const noexcept;
  /// The ceiling: min(p, parallelism()).
  double speedup_bound(std::size_t p) const noexcept;
  /// Graham's bound with the plain span: T1 / (T1/p + (1 - 1/p) span), what a greedy scheduler
  /// whose steals cost nothing achieves at least.
  double speedup_greedy(std::size_t p) const noexcept;

  /// Regions, in the order they first began.
  const std::vector<region_summary>& regions() const noexcept { return m.regions; }
  /// Regions that could not be measured (each with its reason); empty when all were.
  const std::vector<std::string>& problems() const noexcept { return m.problems; }
  /// Why the prediction may be wrong; empty when nothing is known against it. print, write_html
  /// and write_json show them.
  const std::vector<std::string>& warnings() const noexcept { return m.warnings; }

  /// A table: the measures, where the span is spent, the predicted speed-ups and the regions.
  void print(std::ostream& out) const;
  /// The speed-up curves for 1 to 256 workers (the speed-up axis reaches below 1 when a curve
  /// does) and the table, with the warnings, as one HTML page that needs no network. Throws
  /// std::runtime_error when the file cannot be written.
  void write_html(const std::string& path) const;
  /// The measures as JSON, which tools/trace_view.py draws (alone or beside a trace): an object
  /// with "tine_analysis": 1, "name", "units" ("seconds" or "strands"), "runs", "work", "span",
  /// "burdened_span", "steal_cost", "steal_cost_measured", "workers", "forks", "joins",
  /// "critical_strands", "longest_strand", "parallelism", "burdened_parallelism", "curve" (for
  /// P = 1 to 256: "p", "predicted", "greedy", "ceiling"), "regions" ("name", "count", "work",
  /// "span", "burdened_span"), "problems" (strings), "steal_cost_batches",
  /// "steal_cost_agreement" and "steal_cost_spread" (null when the steal cost was given), and
  /// "warnings" (strings). Throws std::runtime_error when the file cannot be written.
  void write_json(const std::string& path) const;

 private:
  measures m;
};

}  // namespace tine

#endif  // TINE_ANALYSIS_ANALYSIS_HPP
