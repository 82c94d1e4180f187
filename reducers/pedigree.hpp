#ifndef TINE_REDUCERS_PEDIGREE_HPP
#define TINE_REDUCERS_PEDIGREE_HPP

/// \file pedigree.hpp
/// A task's place in the fork tree (its *pedigree*) as a 64-bit key, for tine::dprng
/// (dprng.hpp). The pedigree of a task is the list of ranks on the path to it from the nearest
/// `dprng::seeded` task: each task hands out ranks 0, 1, 2, ... in program order, to the
/// children it forks, to the called children that need one, and to every generator it asks for
/// (`co_await dprng::current()`). Nothing in it depends on the schedule: not on steals, workers
/// or time.
///
/// What it costs every program (frame.hpp, fork_call.hpp): a fork copies its parent's count into
/// the child's pedigree word (with the child's own count, zero, in the same store) and adds
/// `pedigree_step` to the parent's; a call costs nothing, since the called child's word is zeroed
/// by the frame's constructor in stores it makes anyway, and its rank is claimed from the parent,
/// which waits for it, only if a generator below it asks. The keys themselves are computed on
/// demand, each frame's once, and cached in the frame.
///
/// `pedigree_word::rank` holds the rank (a multiple of pedigree_step) and three flags:
/// - `cached`: `frame::running.position_key` holds the frame's key;
/// - `claimed`: (a called child) its rank was claimed from its parent;
/// - `transparent`: the task is part of a parallel algorithm's machinery (a split, a leaf),
///   which pedigrees pass through: its key is its parent's, and the tasks it calls are keyed by
///   an element index it sets (see below).
/// A called child's word is 0 until then. Ranks count modulo 2^29 per task: a task that hands out
/// more ranks than that repeats its children's and generators' streams.
///
/// Index keys. A parallel algorithm splits its range recursively, along a tree that depends on
/// the grain, and the automatic grain on the worker count; bodies keyed by that tree would draw
/// different numbers on different pools. So the algorithm's own tasks are transparent
/// (algorithms/detail/index_keys.hpp says how they become so). A transparent task's `spawned` count
/// is the rank of the role in which it calls user's task bodies (0: the element's callable, 1:
/// `op`), and its `position_key` the element index i of the body it calls next. The body's key is
/// then combine(index_key(K, i), r): the key of the child of rank r of a child of rank i of the
/// nearest task above that is not transparent (the algorithm's entry task, key K), whatever
/// split led to the body. A body claims nothing from its transparent parent: its rank is the
/// role, the same for every claimer. index_key takes all 64 bits of i: indices do not wrap.
/// Keys are still computed only when a stream is asked for; what marking and indexing cost the
/// algorithms' loops is measured in bench/journal/2026-11-29-dprng-algorithm-bodies.md.
///
/// Concurrency: a frame's own strand writes its `spawned` count (plain: nobody else reads it,
/// except claimers of a called child's rank, who run while the parent waits for that child);
/// `rank` and `position_key` are written at the frame's creation, then through atomic_ref by any
/// strand below it that computes the key (all compute the same value) or claims the rank (a
/// compare-exchange elects one claimer). A transparent frame's flag is set at its start, and its
/// index before each body it calls, by its own strand, before any strand below that reads them
/// exists; its `position_key` is never a cached key.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <tine/core/frame.hpp>

namespace tine::detail::pedigree {

inline constexpr std::uint32_t cached = 1;
inline constexpr std::uint32_t claimed = 2;
inline constexpr std::uint32_t transparent = pedigree_transparent;
inline constexpr std::uint32_t flags = cached | claimed | transparent;
static_assert((pedigree_step & flags) == 0 && pedigree_step > flags,
              "ranks must leave the flag bits free");

/// SplitMix64's output function (Stafford's "Mix13"): a bijection of 64-bit words with full
/// avalanche, from "Fast splittable pseudorandom number generators" (Steele, Lea, Flood).
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// The golden-ratio increment of SplitMix64.
inline constexpr std::uint64_t golden_gamma = 0x9e3779b97f4a7c15ULL;

/// The key of the child (or generator) of rank `rank` of the task whose key is `key`. For one
/// `key` the sums differ for every rank, and mix64 is a bijection: distinct ranks of one task
/// always give distinct keys; across tasks, keys are as good as random 64-bit words.
constexpr std::uint64_t combine(std::uint64_t key, std::uint32_t rank) noexcept {
  return mix64(key + (static_cast<std::uint64_t>(rank / pedigree_step) + 1) * golden_gamma);
}

/// The key of the child of rank `index` of the task whose key is `key`, for any 64-bit index:
/// combine(key, index * pedigree_step) where that fits, and distinct for every index (the odd
/// multiplier makes (index + 1) * golden_gamma a bijection of 64-bit words).
constexpr std::uint64_t index_key(std::uint64_t key, std::uint64_t index) noexcept {
  return mix64(key + (index + 1) * golden_gamma);
}

/// The key a `dprng::seeded(seed, fn)` task starts from.
constexpr std::uint64_t seed_key(std::uint64_t seed) noexcept {
  return mix64(mix64(seed) ^ 0x5851f42d4c957f2dULL);
}

inline std::uint32_t load_rank(frame* f) noexcept {
  // acquire: pairs with the release store that set `cached` after writing position_key, and with
  // the claim's compare-exchange.
  return std::atomic_ref<std::uint32_t>(f->pedigree.rank).load(std::memory_order_acquire);
}

inline std::uint64_t load_key(frame* f) noexcept {
  // relaxed: ordered after the store that published it by load_rank's acquire.
  return std::atomic_ref<std::uint64_t>(f->running.position_key).load(std::memory_order_relaxed);
}

/// Makes `key` `f`'s key, at `f`'s start (a seeded task), before any strand below it exists.
inline void set_key(frame* f, std::uint64_t key) noexcept {
  std::atomic_ref<std::uint64_t>(f->running.position_key).store(key, std::memory_order_relaxed);
  // release: a strand that sees `cached` sees the key.
  std::atomic_ref<std::uint32_t>(f->pedigree.rank).store(cached, std::memory_order_release);
}

/// The next rank of `f`, called by `f`'s own strand.
inline std::uint32_t next_rank(frame* f) noexcept {
  const std::uint32_t rank = f->pedigree.spawned;
  f->pedigree.spawned = rank + pedigree_step;
  return rank;
}

/// `f`'s rank (flags cleared); `f`'s key is not cached and `f` is not a root. `by_index`: `f`'s
/// parent is transparent, and `f` a body it called at an index.
inline std::uint32_t rank_of(frame* f, std::uint32_t bits, bool by_index) noexcept {
  if (f->kind == frame_kind::fork || (bits & claimed) != 0) {
    return bits & ~flags;
  }
  frame* parent = f->parent;
  std::atomic_ref<std::uint32_t> spawned(parent->pedigree.spawned);
  if (by_index) {
    // Its role's rank, which the parent does not change while it waits for this child: every
    // claimer reads the same, and nothing is handed out. relaxed: set before the call.
    return spawned.load(std::memory_order_relaxed);
  }
  // A called child nobody has claimed a rank for: claim its parent's next one. The parent waits
  // for this child (a call) and hands out no rank meanwhile, so its count can move only by this
  // claim; the compare-exchange elects one claimer among the strands below `f` that ask at once.
  const std::uint32_t rank = spawned.load(std::memory_order_relaxed);
  std::uint32_t expected = 0;
  // acq_rel: a loser's acquire sees the winner's claim; the winner's release orders its update
  // of the parent's count (below) for strands that later see the claim.
  if (std::atomic_ref<std::uint32_t>(f->pedigree.rank)
          .compare_exchange_strong(expected, rank | claimed, std::memory_order_acq_rel,
                                   std::memory_order_acquire)) {
    // relaxed: the parent resumes only after this child's whole subtree has joined, which
    // orders this store before the parent's next use of its count.
    spawned.store(rank + pedigree_step, std::memory_order_relaxed);
    return rank;
  }
  return expected & ~flags;
}

/// Computes, caches and returns the key of `f`'s place; cold (a frame's first request).
TINE_NOINLINE inline std::uint64_t compute_key(frame* f) {
  // Walk up to the nearest frame whose key is known, then come back down computing each key
  // from its parent's. Most walks are a step or two; deep ones keep the path on the heap.
  constexpr std::size_t near = 32;
  frame* path[near];
  std::vector<frame*> far;
  std::size_t n = 0;
  std::uint64_t key = 0;
  for (frame* x = f;; x = x->parent) {
    const std::uint32_t bits = load_rank(x);
    if ((bits & cached) != 0) {
      key = load_key(x);
      break;
    }
    if (x->kind == frame_kind::root) {
      throw std::logic_error(
          "tine::dprng::current: this task does not run inside tine::dprng::seeded(seed, fn); "
          "start the computation as tine::sync_wait(scheduler, tine::dprng::seeded(seed, fn), "
          "args...) or call such a callable from a task");
    }
    if ((bits & transparent) != 0) {
      continue;  // its key is its parent's: nothing to compute or cache
    }
    if (n < near) {
      path[n++] = x;
    } else {
      far.push_back(x);
    }
  }
  auto settle = [&key](frame* y) {
    const std::uint32_t bits = load_rank(y);
    if ((bits & cached) != 0) {  // another strand got there first
      key = load_key(y);
      return;
    }
    // `key` is that of y's nearest ancestor that is not transparent (the walk skipped the
    // others); if y's parent is transparent, y is a body it called at an index (set_index).
    frame* p = y->parent;
    const bool by_index = (load_rank(p) & transparent) != 0;
    TINE_ASSERT(!by_index || y->kind == frame_kind::call,
                "a task that pedigrees pass through forked a task it keys by index");
    const std::uint32_t rank = rank_of(y, bits, by_index);
    if (by_index) {
      key = index_key(
          key,
          std::atomic_ref<std::uint64_t>(p->running.position_key).load(std::memory_order_relaxed));
    }
    key = combine(key, rank);
    std::atomic_ref<std::uint64_t>(y->running.position_key).store(key, std::memory_order_relaxed);
    // release: publishes position_key with the flag. A plain store is enough: once a rank is
    // settled nobody changes these bits but to add `cached`, and every strand that does writes
    // the same word.
    const std::uint32_t how = y->kind == frame_kind::call ? claimed : 0;
    std::atomic_ref<std::uint32_t>(y->pedigree.rank)
        .store(rank | how | cached, std::memory_order_release);
  };
  while (!far.empty()) {
    settle(far.back());
    far.pop_back();
  }
  while (n > 0) {
    settle(path[--n]);
  }
  return key;
}

/// The key of `f`'s place in the fork tree; throws std::logic_error if no seeded task is above.
inline std::uint64_t key_of(frame* f) {
  if (const std::uint32_t bits = load_rank(f); TINE_LIKELY((bits & cached) != 0)) {
    return load_key(f);
  }
  return compute_key(f);
}

}  // namespace tine::detail::pedigree

#endif  // TINE_REDUCERS_PEDIGREE_HPP
