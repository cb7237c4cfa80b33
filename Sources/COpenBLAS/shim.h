// OpenBLAS's CBLAS interface (Debian: libopenblas-dev), for the embedding model's matrix
// products (NotesEmbedding). Only cblas_sgemm and openblas_set_num_threads are used.
// On macOS the same cblas_sgemm comes from Accelerate (<Accelerate/Accelerate.h>, linked
// with `-framework Accelerate`); only Linux is built and tested today.
#include <cblas.h>
