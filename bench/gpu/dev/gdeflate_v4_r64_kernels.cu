/*
 * gdeflate_v4_r64_kernels.cu - GDeflate decoder v4 (the library's core)
 * for gdeflate_dev.cu with 8 blocks of 4 warps an SM asked of ptxas
 * (64 registers or fewer, 32 warps an SM instead of 24 at 80): the
 * occupancy side of "Decoder v4" in GDEFLATE_NOTES.md, and the library's
 * gdd_kernel's launch bounds since.
 */
#define DEV_GDD_CORE "cuda/codecs/gdeflate/gdeflate_dec_core.h"
#define DEV_GDD_LAUNCH dev_gdd_v4_r64
#define DEV_GDD_MINB 8
#include "gdeflate_var_kernel.cuh"
