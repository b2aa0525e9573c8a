/*
 * gdeflate_win_kernels.cu - GDeflate decoder v3 for gdeflate_dev.cu (the
 * register window of input words; GDEFLATE_NOTES.md "Decoder v3"): the
 * library's kernel with v3's core as the library had it until v4
 * (gdeflate_v3_core.h), in its own translation unit so that the harness
 * holds it beside v2 and the library's v4.
 */
#define DEV_GDD_CORE "gdeflate_v3_core.h"
#define DEV_GDD_LAUNCH dev_gdd_v3
#include "gdeflate_var_kernel.cuh"
