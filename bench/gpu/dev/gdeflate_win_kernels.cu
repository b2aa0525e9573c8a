/*
 * gdeflate_win_kernels.cu - GDeflate decoder v3 for gdeflate_dev.cu: the
 * library's kernel and core as they are (the register window of input
 * words, GDD_WIN 1; GDEFLATE_NOTES.md "Decoder v3"), in its own translation
 * unit so that the harness holds it beside v2 (GDD_WIN 0).
 */
#define GDD_WIN 1
#define DEV_GDD_LAUNCH dev_gdd_v3
#include "gdeflate_var_kernel.cuh"
