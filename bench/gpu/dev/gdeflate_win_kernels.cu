/*
 * gdeflate_win_kernels.cu - GDeflate decoder v3 for gdeflate_dev.cu: the
 * library's kernel with the core's register window of input words
 * (GDD_WIN 1; GDEFLATE_NOTES.md "Decoder v3"), in its own translation unit
 * so that the harness holds it beside the library's (v2).
 */
#define GDD_WIN 1
#define DEV_GDD_LAUNCH dev_gdd_v3
#include "gdeflate_var_kernel.cuh"
