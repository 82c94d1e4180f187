#ifndef TINE_CORE_SUBMISSION_QUEUE_HPP
#define TINE_CORE_SUBMISSION_QUEUE_HPP

/// \file submission_queue.hpp
/// `tine::intrusive_mpsc<Node>`: an intrusive, lock-free, multi-producer single-consumer FIFO.
///
/// Used as each worker's submission queue: any thread may hand a worker a node (a task to resume
/// there, a job from outside the pool); only the worker takes them out. It never allocates: the
/// link lives in the node (`Node* next`), so pushing cannot fail or throw.
///
/// Contract:
/// - `push`: any thread, concurrently. A pushed node belongs to the queue until `pop` returns it:
///   the producer must not touch it (not even read `next`) after `push`.
/// - `pop`: the single consumer only: one thread, or threads that hand the role over with a
///   happens-before edge between one's last pop and the next one's first (a lock does).
/// - `empty`: any thread; a snapshot.
/// - The queue must be empty when it is destroyed (it does not own the nodes; leftovers would
///   simply be forgotten).
///
/// Order: the consumer receives nodes in the order their pushes took effect (the order of the
/// successful compare-exchanges below), so in particular each producer's nodes arrive in the
/// order that producer pushed them.
///
/// Design: producers push onto a Treiber stack (one CAS on `m_head`); the consumer detaches the
/// whole stack with one exchange, reverses it into a private FIFO list and serves from that list
/// until it runs dry. Chosen over Vyukov's intrusive MPSC queue because:
/// - the consumer side is wait-free and never sees a half-linked queue (in Vyukov's queue a
///   producer preempted between its exchange and its `next` store makes `pop` report "empty"
///   while items are queued behind it, which is exactly the wrong answer before going to sleep);
/// - no stub node is needed, so `Node` needs no default constructor and the queue has no state
///   a node can be confused with;
/// - ABA cannot hurt: nodes are only ever removed all at once by an exchange, never by a CAS on
///   a node pointer; a producer's CAS that succeeds against a recycled node links in front of
///   that node as it is now, which is correct.
/// The price is a reversal of each batch (O(batch), sequential, in nodes the consumer is about to
/// touch anyway) and a CAS loop for producers (lock-free rather than wait-free); submissions are
/// rare next to the fork/join fast path, which does not use this queue.

#include <tine/core/config.hpp>  // first: a pre-C++20 build stops with tine's message

#include <atomic>
#include <concepts>

namespace tine {

/// A type that `intrusive_mpsc` can link: it has a public data member `Node* next`.
template <typename Node>
concept intrusive_mpsc_node = requires(Node& node) {
  { node.next } -> std::same_as<Node*&>;
};

/// Intrusive lock-free MPSC FIFO; see the file comment for the contract and the design.
template <typename Node>
class intrusive_mpsc {
  static_assert(intrusive_mpsc_node<Node>,
                "tine::intrusive_mpsc<Node> links nodes through a public data member `Node* next`, "
                "which Node does not have: add one (its value is the queue's while queued).");

 public:
  intrusive_mpsc() noexcept = default;
  intrusive_mpsc(const intrusive_mpsc&) = delete;
  intrusive_mpsc& operator=(const intrusive_mpsc&) = delete;

  /// Any thread. Appends `node` (not null, not already queued). Lock-free, never allocates.
  ///
  /// Returns true exactly when the push found the producer side empty, that is when it is the
  /// first push since the consumer last detached the published nodes (or since construction):
  /// between two detaches exactly one push returns true, the first. So a producer that gets true
  /// should wake the consumer, and one that gets false may rely on the wake-up of the producer
  /// that got true before it. True can also be returned while the consumer still holds earlier
  /// nodes in its private batch (it is awake then): at worst a spurious wake-up. The consumer's
  /// sleep protocol (e.g. an event count) must supply its own store-load ordering between
  /// announcing that it sleeps and re-checking `empty()`.
  bool push(Node* node) noexcept {
    // relaxed: only a first guess for the CAS, which re-reads the value if it is wrong; nothing
    // is read through this pointer.
    Node* expected = m_head.load(std::memory_order_relaxed);
    do {
      // Plain write: the node is still ours; the release CAS publishes it.
      node->next = expected;
      // release on success: publishes `node->next` and everything the producer wrote to the
      // node before pushing it. The consumer's acquire exchange reads the head written by this
      // CAS or by a later producer CAS; since CASes are read-modify-writes they continue this
      // CAS's release sequence, so the consumer synchronises with every producer in the batch.
      // relaxed on failure: we only take the new head as the next guess.
      // weak: we loop anyway, and weak avoids a nested loop on LL/SC machines.
    } while (!m_head.compare_exchange_weak(expected, node, std::memory_order_release,
                                           std::memory_order_relaxed));
    return expected == nullptr;
  }

  /// Consumer only. Removes and returns the oldest node, or nullptr if none is published. The
  /// returned node's `next` is unspecified: it is the caller's to reuse.
  Node* pop() noexcept {
    // relaxed: `m_batch` is written only by this (the consumer) thread; it is atomic only so
    // that empty() may read it from other threads.
    Node* first = m_batch.load(std::memory_order_relaxed);
    if (first == nullptr) {
      // relaxed: cheap check so that an empty queue costs no read-modify-write (and no cache
      // line ownership taken away from producers). A stale non-null is harmless (the exchange
      // below re-reads); a stale null only delays the nodes to the next pop, as if they had
      // been pushed a moment later.
      if (m_head.load(std::memory_order_relaxed) == nullptr) {
        return nullptr;
      }
      // acquire: synchronises with the release CAS of the producer of every node in the
      // detached stack (see push()), so their `next` links and contents are visible. release:
      // what the consumer did before taking the batch is visible to whoever sees it gone (see
      // empty()).
      Node* stack = m_head.exchange(nullptr, std::memory_order_acq_rel);
      // The stack runs newest to oldest; reverse it so the oldest comes first. Plain accesses:
      // these nodes now belong to the consumer alone.
      Node* fifo = nullptr;
      while (stack != nullptr) {
        Node* older = stack->next;
        stack->next = fifo;
        fifo = stack;
        stack = older;
      }
      first = fifo;
    }
    // release: consumer-owned, atomic for empty(); release so that a thread whose acquire read
    // in empty() sees this node gone also sees what the consumer did before taking it.
    m_batch.store(first->next, std::memory_order_release);
    return first;
  }

  /// Any thread. Whether no node is queued; a snapshot that may be stale by the time it returns.
  bool empty() const noexcept {
    // acquire, both: a snapshot, but one that orders: a caller that sees a node gone also sees
    // what its consumer did before taking it (a pool's destructor, checking that no work is
    // left, relies on this; see pop()). No node is read on the strength of it.
    return m_batch.load(std::memory_order_acquire) == nullptr &&
           m_head.load(std::memory_order_acquire) == nullptr;
  }

 private:
  // Producer side (a Treiber stack, newest first). Its own cache line: producers hammer it with
  // CASes while the consumer mostly works on `m_batch`.
  alignas(64) std::atomic<Node*> m_head{nullptr};
  // Consumer side: the rest of the last detached batch, oldest first.
  alignas(64) std::atomic<Node*> m_batch{nullptr};
};

}  // namespace tine

#endif  // TINE_CORE_SUBMISSION_QUEUE_HPP
