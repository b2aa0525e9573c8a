/*
 * gdeflate_v4_kernels.cu - GDeflate decoder v4 for gdeflate_dev.cu: the
 * library's kernel and core as they are (one body for a lane's visit;
 * GDEFLATE_NOTES.md "Decoder v4"), in its own translation unit so that the
 * harness holds it beside v2 and v3.
 */
#define DEV_GDD_CORE "cuda/codecs/gdeflate/gdeflate_dec_core.h"
#define DEV_GDD_LAUNCH dev_gdd_v4
#include "gdeflate_var_kernel.cuh"
