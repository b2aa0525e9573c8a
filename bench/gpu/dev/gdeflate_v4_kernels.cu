/*
 * gdeflate_v4_kernels.cu - GDeflate decoder v4 for gdeflate_dev.cu
 * (gdeflate_v4_core.h: one body for a lane's visit, more matches copied by
 * their own lanes; GDEFLATE_NOTES.md "Decoder v4"), in its own translation
 * unit so that the harness holds it beside the library's v3 and v2.
 */
#define DEV_GDD_CORE "gdeflate_v4_core.h"
#define DEV_GDD_LAUNCH dev_gdd_v4
#include "gdeflate_var_kernel.cuh"
