/*
 * gdeflate_v4_r72_kernels.cu - GDeflate decoder v4 (the library's core)
 * for gdeflate_dev.cu with 7 blocks of 4 warps an SM asked of ptxas
 * (72 registers or fewer, 28 warps an SM instead of 24 at 80): the
 * occupancy side of "Decoder v4" in GDEFLATE_NOTES.md.
 */
#define DEV_GDD_CORE "cuda/codecs/gdeflate/gdeflate_dec_core.h"
#define DEV_GDD_LAUNCH dev_gdd_v4_r72
#define DEV_GDD_MINB 7
#include "gdeflate_var_kernel.cuh"
