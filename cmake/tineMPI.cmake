# Which MPI a build uses, for tine's own build (CMakeLists.txt) and for the projects that find the
# installed package (tineConfig.cmake): a program, tine's libtine_distributed.a and the MPI library
# it links must all be the same MPI, and the program must be started by that MPI's mpiexec.
# MPICH and Open MPI differ in their ABI (MPI_Comm is an int in one and a pointer in the other), so
# mixing them builds cleanly and crashes at start-up; one MPI's program started by the other's
# mpiexec runs as that many jobs of one process.

# tine_mpi_identify(<family> <name> <header>): after FindMPI, the MPI its MPI_CXX_* results (or,
# when the compiler is an MPI wrapper, the compiler's own include directories) lead to, read from
# that mpi.h: <family> "MPICH" or "Open MPI" ("" when neither, or no mpi.h was found), <name> with
# its version ("MPICH 4.0.2"), <header> the mpi.h read.
function(tine_mpi_identify family_var name_var header_var)
  set(family "")
  set(name "")
  set(header "")
  foreach(dir IN LISTS MPI_CXX_HEADER_DIR MPI_CXX_INCLUDE_DIRS MPI_CXX_ADDITIONAL_INCLUDE_DIRS
                       CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
    if(dir AND EXISTS "${dir}/mpi.h")
      set(header "${dir}/mpi.h")
      break()
    endif()
  endforeach()
  if(header)
    file(STRINGS "${header}" lines
         REGEX "^#define[ \t]+(MPICH_VERSION|OMPI_(MAJOR|MINOR|RELEASE)_VERSION)[ \t]")
    if(lines MATCHES "MPICH_VERSION[ \t]+\"([^\"]*)\"")
      set(family "MPICH")
      set(name "MPICH ${CMAKE_MATCH_1}")
    elseif(lines MATCHES "OMPI_MAJOR_VERSION[ \t]+([0-9]+)")
      set(family "Open MPI")
      set(version "${CMAKE_MATCH_1}")
      foreach(part MINOR RELEASE)
        if(lines MATCHES "OMPI_${part}_VERSION[ \t]+([0-9]+)")
          string(APPEND version ".${CMAKE_MATCH_1}")
        endif()
      endforeach()
      set(name "Open MPI ${version}")
    else()
      set(name "an MPI other than MPICH and Open MPI")
    endif()
  endif()
  set(${family_var} "${family}" PARENT_SCOPE)
  set(${name_var} "${name}" PARENT_SCOPE)
  set(${header_var} "${header}" PARENT_SCOPE)
endfunction()

# tine_mpi_launcher_family(<exe> <family>): "MPICH" or "Open MPI" as `<exe> --version` says
# ("" when it says neither or does not run).
function(tine_mpi_launcher_family exe family_var)
  set(family "")
  if(exe)
    execute_process(COMMAND "${exe}" --version OUTPUT_VARIABLE out ERROR_VARIABLE out
                    RESULT_VARIABLE result TIMEOUT 20)
    if(out MATCHES "HYDRA|MPICH")
      set(family "MPICH")
    elseif(out MATCHES "Open MPI|OpenRTE|open-mpi")
      set(family "Open MPI")
    endif()
  endif()
  set(${family_var} "${family}" PARENT_SCOPE)
endfunction()

# tine_mpi_launcher_of(<family> <exe>): the launcher named after <family> on this system
# (Debian's mpiexec.mpich or mpiexec.hydra, mpiexec.openmpi), or "".
function(tine_mpi_launcher_of family exe_var)
  set(names "")
  if(family STREQUAL "MPICH")
    set(names mpiexec.mpich mpiexec.hydra)
  elseif(family STREQUAL "Open MPI")
    set(names mpiexec.openmpi)
  endif()
  set(exe "")
  if(names)
    find_program(_tine_launcher_${exe_var} NAMES ${names} NO_CACHE)
    if(_tine_launcher_${exe_var})
      set(exe "${_tine_launcher_${exe_var}}")
    endif()
  endif()
  set(${exe_var} "${exe}" PARENT_SCOPE)
endfunction()
