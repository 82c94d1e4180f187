// The one-rank MPI of mpi.h (tests only). Every call may come from any thread, as with
// MPI_THREAD_MULTIPLE; misuse that MPI would report (another rank, a freed handle) ends the
// program with a message.
#include "mpi.h"

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <vector>

namespace {

[[noreturn]] void misuse(const char* what) {
  std::fprintf(stderr, "MPI stub: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

struct message {
  MPI_Comm comm;
  int tag;
  std::vector<unsigned char> bytes;
};

struct window {
  unsigned char* base = nullptr;
  int unit = 1;
  bool allocated = false;  // by MPI_Win_allocate: freed with the window
};

// The stub's state, behind one lock: handles are made and freed at set-up and tear-down, and
// messages are rare (arrivals at joins, which one rank never sends to itself).
std::mutex state_mutex;
std::condition_variable message_sent;
std::deque<message> mailbox;
std::vector<window> windows;  // MPI_Win n is windows[n - 1]
int next_comm = MPI_COMM_WORLD + 1;
std::atomic<int> initialised{0};

void check_comm(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) {
    misuse("a call on MPI_COMM_NULL (a freed communicator)");
  }
}

void check_rank(int rank) {
  if (rank != 0) {
    misuse("a rank other than 0 (the stub has one rank)");
  }
}

unsigned char* target(MPI_Win w, MPI_Aint displacement) {
  std::lock_guard lock(state_mutex);
  if (w <= 0 || static_cast<std::size_t>(w) > windows.size() || windows[w - 1].base == nullptr) {
    misuse("an operation on a freed or unknown window");
  }
  return windows[w - 1].base + displacement * windows[w - 1].unit;
}

MPI_Win add_window(unsigned char* base, int unit, bool allocated) {
  std::lock_guard lock(state_mutex);
  windows.push_back(window{base, unit, allocated});
  return static_cast<MPI_Win>(windows.size());
}

// Words of a window are read and written atomically, as MPI's one-sided operations are against
// each other and tine's deque owner uses atomics on its own words; bytes are copied.
void copy(unsigned char* to, const unsigned char* from, int count, MPI_Datatype type) {
  const std::size_t n = static_cast<std::size_t>(count) * static_cast<std::size_t>(type);
  if (to == from) {
    return;
  }
  if (type == 8) {
    for (int i = 0; i < count; ++i) {
      std::int64_t v =
          __atomic_load_n(reinterpret_cast<const std::int64_t*>(from) + i, __ATOMIC_SEQ_CST);
      __atomic_store_n(reinterpret_cast<std::int64_t*>(to) + i, v, __ATOMIC_SEQ_CST);
    }
    return;
  }
  std::memmove(to, from, n);
}

bool matches(const message& m, MPI_Comm comm, int tag) {
  return m.comm == comm && (tag == MPI_ANY_TAG || m.tag == tag);
}

}  // namespace

extern "C" {

int MPI_Init_thread(int*, char***, int, int* provided) {
  initialised.store(1);
  *provided = MPI_THREAD_MULTIPLE;
  return MPI_SUCCESS;
}

int MPI_Initialized(int* flag) {
  *flag = initialised.load();
  return MPI_SUCCESS;
}

int MPI_Query_thread(int* provided) {
  *provided = MPI_THREAD_MULTIPLE;
  return MPI_SUCCESS;
}

int MPI_Finalize(void) {
  std::lock_guard lock(state_mutex);
  if (!mailbox.empty()) {
    misuse("MPI_Finalize with messages not received");
  }
  return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm, int code) {
  std::fprintf(stderr, "MPI stub: MPI_Abort(%d)\n", code);
  std::fflush(stderr);
  std::_Exit(code != 0 ? code : 1);
}

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  check_comm(comm);
  *rank = 0;
  return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  check_comm(comm);
  *size = 1;
  return MPI_SUCCESS;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* copy) {
  check_comm(comm);
  std::lock_guard lock(state_mutex);
  *copy = next_comm++;
  return MPI_SUCCESS;
}

int MPI_Comm_split_type(MPI_Comm comm, int, int, MPI_Info, MPI_Comm* part) {
  return MPI_Comm_dup(comm, part);
}

int MPI_Comm_split(MPI_Comm comm, int, int, MPI_Comm* part) { return MPI_Comm_dup(comm, part); }

int MPI_Comm_free(MPI_Comm* comm) {
  check_comm(*comm);
  if (*comm == MPI_COMM_WORLD) {
    misuse("MPI_Comm_free(MPI_COMM_WORLD)");
  }
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int MPI_Barrier(MPI_Comm comm) {
  check_comm(comm);
  return MPI_SUCCESS;
}

int MPI_Allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op, MPI_Comm comm) {
  check_comm(comm);
  std::memmove(out, in, static_cast<std::size_t>(count) * static_cast<std::size_t>(type));
  return MPI_SUCCESS;
}

int MPI_Allgather(const void* in, int in_count, MPI_Datatype in_type, void* out, int, MPI_Datatype,
                  MPI_Comm comm) {
  check_comm(comm);
  std::memmove(out, in, static_cast<std::size_t>(in_count) * static_cast<std::size_t>(in_type));
  return MPI_SUCCESS;
}

int MPI_Iallgather(const void* in, int in_count, MPI_Datatype in_type, void* out, int out_count,
                   MPI_Datatype out_type, MPI_Comm comm, MPI_Request* request) {
  *request = MPI_REQUEST_NULL;  // complete already
  return MPI_Allgather(in, in_count, in_type, out, out_count, out_type, comm);
}

int MPI_Bcast(void*, int, MPI_Datatype, int root, MPI_Comm comm) {
  check_comm(comm);
  check_rank(root);
  return MPI_SUCCESS;
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request* request) {
  *request = MPI_REQUEST_NULL;
  return MPI_Bcast(buffer, count, type, root, comm);
}

int MPI_Test(MPI_Request* request, int* done, MPI_Status*) {
  *request = MPI_REQUEST_NULL;
  *done = 1;
  return MPI_SUCCESS;
}

int MPI_Wait(MPI_Request* request, MPI_Status*) {
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int MPI_Send(const void* buffer, int count, MPI_Datatype type, int to, int tag, MPI_Comm comm) {
  check_comm(comm);
  check_rank(to);
  const auto* bytes = static_cast<const unsigned char*>(buffer);
  message m{comm, tag,
            std::vector<unsigned char>(
                bytes, bytes + static_cast<std::size_t>(count) * static_cast<std::size_t>(type))};
  {
    std::lock_guard lock(state_mutex);
    mailbox.push_back(std::move(m));
  }
  message_sent.notify_all();
  return MPI_SUCCESS;
}

int MPI_Recv(void* buffer, int count, MPI_Datatype type, int from, int tag, MPI_Comm comm,
             MPI_Status* status) {
  check_comm(comm);
  if (from != MPI_ANY_SOURCE) {
    check_rank(from);
  }
  std::unique_lock lock(state_mutex);
  for (;;) {
    for (auto it = mailbox.begin(); it != mailbox.end(); ++it) {
      if (!matches(*it, comm, tag)) {
        continue;
      }
      if (it->bytes.size() > static_cast<std::size_t>(count) * static_cast<std::size_t>(type)) {
        misuse("MPI_Recv into a buffer smaller than the message");
      }
      std::memcpy(buffer, it->bytes.data(), it->bytes.size());
      if (status != MPI_STATUS_IGNORE) {
        *status = MPI_Status{0, it->tag, MPI_SUCCESS, static_cast<long long>(it->bytes.size())};
      }
      mailbox.erase(it);
      return MPI_SUCCESS;
    }
    message_sent.wait(lock);
  }
}

int MPI_Iprobe(int from, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  check_comm(comm);
  if (from != MPI_ANY_SOURCE) {
    check_rank(from);
  }
  std::lock_guard lock(state_mutex);
  *flag = 0;
  for (const message& m : mailbox) {
    if (matches(m, comm, tag)) {
      *flag = 1;
      if (status != MPI_STATUS_IGNORE) {
        *status = MPI_Status{0, m.tag, MPI_SUCCESS, static_cast<long long>(m.bytes.size())};
      }
      break;
    }
  }
  return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status* status, MPI_Datatype type, int* count) {
  *count = static_cast<int>(status->tine_stub_bytes / type);
  return MPI_SUCCESS;
}

int MPI_Win_allocate(MPI_Aint bytes, int unit, MPI_Info, MPI_Comm comm, void* base,
                     MPI_Win* window) {
  check_comm(comm);
  void* memory = ::operator new(static_cast<std::size_t>(bytes), std::align_val_t{64});
  std::memset(memory, 0, static_cast<std::size_t>(bytes));
  *static_cast<void**>(base) = memory;
  *window = add_window(static_cast<unsigned char*>(memory), unit, true);
  return MPI_SUCCESS;
}

// One rank: its shared-memory window is its own memory, and the only rank to query.
int MPI_Win_allocate_shared(MPI_Aint bytes, int unit, MPI_Info info, MPI_Comm comm, void* base,
                            MPI_Win* window) {
  return MPI_Win_allocate(bytes, unit, info, comm, base, window);
}

int MPI_Win_shared_query(MPI_Win w, int rank, MPI_Aint*, int* unit, void* base) {
  if (rank != 0) {
    misuse("MPI_Win_shared_query of a rank other than 0");
  }
  *static_cast<void**>(base) = target(w, 0);
  std::lock_guard lock(state_mutex);
  *unit = windows[w - 1].unit;
  return MPI_SUCCESS;
}

// Hints are ignored.
int MPI_Info_create(MPI_Info* info) {
  *info = 1;
  return MPI_SUCCESS;
}

int MPI_Info_set(MPI_Info, const char*, const char*) { return MPI_SUCCESS; }

int MPI_Info_free(MPI_Info* info) {
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

int MPI_Win_create(void* base, MPI_Aint, int unit, MPI_Info, MPI_Comm comm, MPI_Win* window) {
  check_comm(comm);
  *window = add_window(static_cast<unsigned char*>(base), unit, false);
  return MPI_SUCCESS;
}

int MPI_Win_free(MPI_Win* w) {
  unsigned char* base = target(*w, 0);
  {
    std::lock_guard lock(state_mutex);
    window& it = windows[*w - 1];
    if (it.allocated) {
      ::operator delete(base, std::align_val_t{64});
    }
    it.base = nullptr;
  }
  *w = MPI_WIN_NULL;
  return MPI_SUCCESS;
}

int MPI_Win_lock_all(int, MPI_Win w) {
  (void)target(w, 0);
  return MPI_SUCCESS;
}

int MPI_Win_unlock_all(MPI_Win w) {
  (void)target(w, 0);
  return MPI_SUCCESS;
}

int MPI_Win_flush(int rank, MPI_Win w) {
  check_rank(rank);
  (void)target(w, 0);
  return MPI_SUCCESS;
}

int MPI_Win_sync(MPI_Win w) {
  (void)target(w, 0);
  return MPI_SUCCESS;
}

int MPI_Get(void* out, int out_count, MPI_Datatype out_type, int rank, MPI_Aint displacement,
            int count, MPI_Datatype type, MPI_Win w) {
  check_rank(rank);
  if (out_count * out_type != count * type) {
    misuse("MPI_Get with origin and target of different sizes");
  }
  copy(static_cast<unsigned char*>(out), target(w, displacement), count, type);
  return MPI_SUCCESS;
}

int MPI_Put(const void* in, int in_count, MPI_Datatype in_type, int rank, MPI_Aint displacement,
            int count, MPI_Datatype type, MPI_Win w) {
  check_rank(rank);
  if (in_count * in_type != count * type) {
    misuse("MPI_Put with origin and target of different sizes");
  }
  copy(target(w, displacement), static_cast<const unsigned char*>(in), count, type);
  return MPI_SUCCESS;
}

int MPI_Fetch_and_op(const void* in, void* out, MPI_Datatype type, int rank, MPI_Aint displacement,
                     MPI_Op op, MPI_Win w) {
  check_rank(rank);
  if (type != 8) {
    misuse("MPI_Fetch_and_op on other than 64-bit words");
  }
  auto* word = reinterpret_cast<std::int64_t*>(target(w, displacement));
  const std::int64_t operand = *static_cast<const std::int64_t*>(in);
  std::int64_t old = 0;
  switch (op) {
    case MPI_SUM:
      old = __atomic_fetch_add(word, operand, __ATOMIC_SEQ_CST);
      break;
    case MPI_REPLACE:
      old = __atomic_exchange_n(word, operand, __ATOMIC_SEQ_CST);
      break;
    case MPI_NO_OP:
      old = __atomic_load_n(word, __ATOMIC_SEQ_CST);
      break;
    default:
      misuse("MPI_Fetch_and_op with an operation the stub lacks");
  }
  *static_cast<std::int64_t*>(out) = old;
  return MPI_SUCCESS;
}

int MPI_Compare_and_swap(const void* in, const void* compare, void* out, MPI_Datatype type,
                         int rank, MPI_Aint displacement, MPI_Win w) {
  check_rank(rank);
  if (type != 8) {
    misuse("MPI_Compare_and_swap on other than 64-bit words");
  }
  auto* word = reinterpret_cast<std::int64_t*>(target(w, displacement));
  std::int64_t expected = *static_cast<const std::int64_t*>(compare);
  __atomic_compare_exchange_n(word, &expected, *static_cast<const std::int64_t*>(in), false,
                              __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  *static_cast<std::int64_t*>(out) = expected;  // the old value, whether or not it swapped
  return MPI_SUCCESS;
}

}  // extern "C"
