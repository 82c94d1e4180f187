#ifndef TINE_TESTS_DISTRIBUTED_MPI_STUB_MPI_H
#define TINE_TESTS_DISTRIBUTED_MPI_STUB_MPI_H

// A one-rank MPI for tests only: the part of MPI's C interface that tine's distributed layer and
// its tests call, implemented in this process with no MPI library, so that the threads of a rank
// (its workers, its progress thread, the offers between them) run under ThreadSanitizer, which
// the MPI libraries are not built for. One-sided operations on a window are C++ atomics on its
// memory (tine's own side of the deque uses atomics on the same words); messages are queued in
// the process; collectives over one rank copy. Anything else is not declared, so a use of it
// fails to compile rather than behaving differently from MPI.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int MPI_Comm;
typedef int MPI_Win;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Info;
typedef int MPI_Request;
typedef intptr_t MPI_Aint;

typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  long long tine_stub_bytes;
} MPI_Status;

#define MPI_SUCCESS 0
#define MPI_COMM_NULL 0
#define MPI_COMM_WORLD 1
#define MPI_WIN_NULL 0
#define MPI_REQUEST_NULL 0
#define MPI_INFO_NULL 0
#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_ANY_SOURCE (-2)
#define MPI_ANY_TAG (-1)
#define MPI_MODE_NOCHECK 1024
#define MPI_COMM_TYPE_SHARED 1

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

// Datatypes: the size in bytes, which is all the stub needs of them.
#define MPI_BYTE 1
#define MPI_CHAR 1
#define MPI_INT ((int)sizeof(int))
#define MPI_INT64_T 8
#define MPI_UINT32_T 4
#define MPI_UINT64_T 8

#define MPI_SUM 1
#define MPI_MIN 2
#define MPI_BAND 3
#define MPI_REPLACE 4
#define MPI_NO_OP 5
#define MPI_MAX 6

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided);
int MPI_Initialized(int* flag);
int MPI_Query_thread(int* provided);
int MPI_Finalize(void);
int MPI_Abort(MPI_Comm comm, int code);

int MPI_Comm_rank(MPI_Comm comm, int* rank);
int MPI_Comm_size(MPI_Comm comm, int* size);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* copy);
int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm* part);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* part);
int MPI_Comm_free(MPI_Comm* comm);

int MPI_Barrier(MPI_Comm comm);
int MPI_Allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm);
int MPI_Allgather(const void* in, int in_count, MPI_Datatype in_type, void* out, int out_count,
                  MPI_Datatype out_type, MPI_Comm comm);
int MPI_Iallgather(const void* in, int in_count, MPI_Datatype in_type, void* out, int out_count,
                   MPI_Datatype out_type, MPI_Comm comm, MPI_Request* request);
int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);
int MPI_Ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request* request);
int MPI_Test(MPI_Request* request, int* done, MPI_Status* status);
int MPI_Wait(MPI_Request* request, MPI_Status* status);

int MPI_Send(const void* buffer, int count, MPI_Datatype type, int to, int tag, MPI_Comm comm);
int MPI_Recv(void* buffer, int count, MPI_Datatype type, int from, int tag, MPI_Comm comm,
             MPI_Status* status);
int MPI_Iprobe(int from, int tag, MPI_Comm comm, int* flag, MPI_Status* status);
int MPI_Get_count(const MPI_Status* status, MPI_Datatype type, int* count);

int MPI_Win_allocate(MPI_Aint bytes, int unit, MPI_Info info, MPI_Comm comm, void* base,
                     MPI_Win* window);
int MPI_Win_allocate_shared(MPI_Aint bytes, int unit, MPI_Info info, MPI_Comm comm, void* base,
                            MPI_Win* window);
int MPI_Win_shared_query(MPI_Win window, int rank, MPI_Aint* bytes, int* unit, void* base);
int MPI_Info_create(MPI_Info* info);
int MPI_Info_set(MPI_Info info, const char* key, const char* value);
int MPI_Info_free(MPI_Info* info);
int MPI_Win_create(void* base, MPI_Aint bytes, int unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win* window);
int MPI_Win_free(MPI_Win* window);
int MPI_Win_lock_all(int assertion, MPI_Win window);
int MPI_Win_unlock_all(MPI_Win window);
int MPI_Win_flush(int rank, MPI_Win window);
int MPI_Win_sync(MPI_Win window);
int MPI_Get(void* out, int out_count, MPI_Datatype out_type, int rank, MPI_Aint displacement,
            int count, MPI_Datatype type, MPI_Win window);
int MPI_Put(const void* in, int in_count, MPI_Datatype in_type, int rank, MPI_Aint displacement,
            int count, MPI_Datatype type, MPI_Win window);
int MPI_Fetch_and_op(const void* in, void* out, MPI_Datatype type, int rank, MPI_Aint displacement,
                     MPI_Op op, MPI_Win window);
int MPI_Compare_and_swap(const void* in, const void* compare, void* out, MPI_Datatype type,
                         int rank, MPI_Aint displacement, MPI_Win window);

#ifdef __cplusplus
}
#endif

#endif  // TINE_TESTS_DISTRIBUTED_MPI_STUB_MPI_H
