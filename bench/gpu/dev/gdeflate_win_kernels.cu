/*
 * gdeflate_win_kernels.cu - GDeflate decoder v3 for gdeflate_dev.cu: the
 * library's kernel and core as they are (the register window of input
 * words; GDEFLATE_NOTES.md "Decoder v3"), in its own translation unit so
 * that the harness holds it beside v2 (gdeflate_v2_core.h).
 */
#define DEV_GDD_CORE "cuda/codecs/gdeflate/gdeflate_dec_core.h"
#define DEV_GDD_LAUNCH dev_gdd_v3
#include "gdeflate_var_kernel.cuh"
