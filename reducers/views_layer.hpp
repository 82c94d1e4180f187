#ifndef TINE_REDUCERS_VIEWS_LAYER_HPP
#define TINE_REDUCERS_VIEWS_LAYER_HPP

/// \file views_layer.hpp
/// Where the views of `tine::reducer` live and when they are made and merged: Cilk's
/// hyperobject semantics on continuation stealing and Nowa's wait-free join, as the core's
/// strand layer (core/worker_strands.hpp says when the core calls it).
///
/// A *strand* here is what one worker runs between two scheduling events: from a root's start,
/// a steal or a move (resume_on) until it arrives at a join it is not the last at, or the root
/// ends. Each strand has a record (`strand_views`) holding its views, one per reducer it used,
/// made on first use. A fork or call that is not stolen makes no record and no view: its child
/// and the continuation run in the same strand, in serial order.
///
/// A steal of task F's continuation begins a strand (F, j), j being F's steal count, and its
/// thief links the new record into F's list (`frame::running.views_stolen`). Steals of one scope
/// are serial: thief j took the continuation that thief j-1's strand pushed, through the deque's
/// release/acquire, so the list needs no atomics. The strand that was running when F's scope
/// opened (its *leftmost*, serially before every stolen strand) leaves its record in
/// `frame::views_left` when it arrives at F's join. Strands of one scope thus come in serial
/// order: leftmost, then stolen 1, 2, ..., S.
///
/// The last strand to arrive at the join (Nowa's counter decides, and its acquire/release makes
/// every other strand's views visible) merges the stolen strands' views into the leftmost's in
/// that order, `leftmost := leftmost ⊕ stolen_1 ⊕ ... ⊕ stolen_S`, and continues F in the
/// leftmost's record: exactly the serial result for any associative monoid, commutative or not.
/// A strand knows which scope it ends in from its record's (owner, index): a strand that began
/// by stealing F's continuation is F's stolen strand; any other strand arriving at F's join is
/// F's leftmost (records made for an earlier scope of F were merged at its join).
///
/// Records come from the worker's spares (one is made ready before a worker takes work, so that
/// beginning a strand never fails) and go back to the merging worker's, with a process-wide pool
/// between workers (strand_records.hpp). A record is one block of about 64 bytes, kept for
/// reuse; its table grows on the strand's first views.
///
/// A worker whose frames may move to another process (its worker backend has a process boundary:
/// the distributed pool on more than one rank) keeps no records: its strands have none, and
/// `reducer::view()` refuses to make a view there. So does every worker of a process whose
/// first computation began before this layer was installed (during static initialisation).

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <cstdint>
#include <exception>
#include <utility>

#include <tine/core/frame.hpp>
#include <tine/core/worker_strands.hpp>
#include <tine/reducers/reducer_base.hpp>
#include <tine/reducers/strand_records.hpp>
#include <tine/reducers/view_table.hpp>

namespace tine::detail {

/// Whether the calling worker keeps views: not when its frames may move to another process,
/// where a view, which lives in this process's heap, could not follow them.
inline bool views_allowed() noexcept { return !frames_may_leave_process(); }

/// The strand layer of the reducers: a worker's part is the record of the strand it runs
/// (`worker_strands::current()`) and its spare records (a `record_cache` in the worker's layer
/// words, filled at its first `reserve()`).
class views_layer final : public strand_layer {
 public:
  /// The one instance, installed with the core during static initialisation (below).
  static const views_layer& instance() noexcept {
    static constinit const views_layer layer{};
    return layer;
  }

  constexpr views_layer() = default;

  bool reserve(worker_strands& w) const noexcept override {
    return record_cache(w.words()).reserve();
  }

  void retire(worker_strands& w) const noexcept override { record_cache(w.words()).release(); }

  /// A root task starts on this worker: its strand is the leftmost of the whole computation.
  void begin_root(worker_strands& w) const noexcept override {
    w.set_current(views_allowed() ? take(w, nullptr, 0) : nullptr);
  }

  /// The root task ended here, its frame gone: every view of the computation has been merged
  /// into this strand's, in serial order; fold each into its reducer's own value, under the
  /// reducer's lock (other roots may end at the same time). A reduce that throws leaves its
  /// exception in `error` unless one is already there. Each view's count drops last: after it
  /// this root touches the reducer no more, and whoever sees the count without it may destroy it.
  void end_root(worker_strands& w, std::exception_ptr& error) const noexcept override {
    strand_views* s = w.leave();
    if (s == nullptr) {
      return;
    }
    s->table.drain([&error](reducer_base* key, void* view) noexcept {
      try {
        key->fold_root_view(view);
      } catch (...) {
        if (!error) {
          error = std::current_exception();
        }
      }
      key->destroy_view(view);
      key->view_gone();
    });
    recycle(w, s);
  }

  /// This worker has just stolen `f`'s continuation (f->steals counted): begin the strand
  /// (f, steals) and link its record into f's list. The thief of the previous steal of this scope
  /// linked its own before pushing the continuation we took, so the list is ours alone now.
  void begin_stolen(worker_strands& w, frame* f) const noexcept override {
    if (!views_allowed()) {
      w.set_current(nullptr);
      return;
    }
    strand_views* s = take(w, f, f->steals);
    s->next = f->steals == 1 ? nullptr : f->running.views_stolen;
    f->running.views_stolen = s;
    w.set_current(s);
  }

  /// The strand this worker runs arrives at `f`'s join (a child whose parent was stolen, or `f`
  /// itself), before its arrival is counted: a stolen strand of f is already in f's list; any
  /// other is f's leftmost and leaves its record in the frame. Counting the arrival (release)
  /// then publishes the record and its views to whoever arrives last.
  void deposit(worker_strands& w, frame* f) const noexcept override {
    strand_views* s = w.leave();
    // Where frames may leave the process there are no views and nothing reads views_left; every
    // arrival would write it, several workers of a rank at once.
    if (views_allowed() && (s == nullptr || s->owner != f)) {
      f->views_left = s;
    }
  }

  /// This worker's strand arrived last at `f`'s join, after every other (acquire): merge the
  /// stolen strands' views into the leftmost's in serial order and continue in the leftmost's
  /// record. A reduce that throws has its exception stored in `f`, to be rethrown at the join
  /// like a child's; its right-hand view is destroyed all the same.
  void merge(worker_strands& w, frame* f) const noexcept override {
    if (!views_allowed()) {
      w.set_current(nullptr);
      return;
    }
    strand_views* left = f->views_left;
    // The list runs from the last steal back to the first: reverse it into serial order.
    strand_views* in_order = nullptr;
    for (strand_views* s = f->running.views_stolen; s != nullptr;) {
      strand_views* older = s->next;
      s->next = in_order;
      in_order = s;
      s = older;
    }
    while (in_order != nullptr) {
      strand_views* s = in_order;
      in_order = s->next;
      absorb(left, s, f);
      recycle(w, s);
    }
    w.set_current(left);
  }

 private:
  /// A spare record (reserve() made sure there is one), set up as strand (owner, index).
  static strand_views* take(worker_strands& w, frame* owner, std::uint32_t index) noexcept {
    record_cache spares(w.words());
    if (TINE_UNLIKELY(!spares.reserve())) {
      // Every way into work reserves a record first (worker_context); this is a safety net.
      fatal("tine::reducer: no memory for the record of a strand's views");
    }
    strand_views* s = spares.take();
    s->owner = owner;
    s->index = index;
    return s;
  }

  /// Back to this worker's spares (its reserve() made them: it merged, so it took work).
  static void recycle(worker_strands& w, strand_views* s) noexcept {
    TINE_ASSERT(s->table.empty(), "a strand's record was recycled with views in it");
    record_cache(w.words()).put(s);
  }

  /// `left` := left ⊕ right, view by view; `right` is left empty.
  static void absorb(strand_views* left, strand_views* right, frame* f) noexcept {
    if (right->table.empty()) {
      return;
    }
    if (left == nullptr) {
      // Only a computation that began where views are refused (a task that moved here from
      // such a worker) has a strand without a record; its stolen strands made views anyway.
      fatal(
          "tine::reducer: views were made in a computation that started on a worker that keeps "
          "none (tine::mpi_pool on more than one rank), after part of it moved elsewhere; "
          "reducers cannot be used in such a computation");
    }
    right->table.drain([left, f](reducer_base* key, void* view) noexcept {
      if (void* mine = left->table.find(key)) {
        try {
          key->reduce_views(mine, view);
        } catch (...) {
          f->stash_exception(std::current_exception());
        }
        key->destroy_view(view);
        key->view_gone();
        return;
      }
      if (!left->table.insert(key, view)) {
        fatal(
            "tine::reducer: no memory to merge the views of a stolen strand at a join (the "
            "table of the strand to its left could not grow)");
      }
    });
  }
};

/// Installs the layer before main in every program that includes this header (tine::reducer's):
/// an inline variable's initialiser runs during static initialisation.
inline const bool views_layer_installed = strand_layer_slot::install(&views_layer::instance());

}  // namespace tine::detail

#endif  // TINE_REDUCERS_VIEWS_LAYER_HPP
