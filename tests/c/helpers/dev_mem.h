/*
 * dev_mem.h - device memory for the GPU tests, written once: allocate,
 * free, copy (and wait) and upload through the public memory calls on the
 * test's GPU context g_gpu, which this header declares and the test sets
 * (oc_context_create with OC_ENGINE_CUDA, or the address of an internal
 * context the test set up itself).  A size of 0 still gives a real pointer
 * (the engine allocates one byte); dev_free takes the size dev_alloc was
 * given.
 * Every failure stops the test with a message (a test cannot go on
 * without its buffers), whichever check header the test uses.  The
 * functions are static inline, in the test's own unit.
 */
#ifndef OC_DEV_MEM_H
#define OC_DEV_MEM_H

#include <stdio.h>
#include <stdlib.h>

#include "opencomp.h"

/* The context device memory goes through. */
static oc_context *g_gpu;

static inline void dev_mem_require(oc_status st, const char *what)
{
    if (st != OC_OK) {
        fprintf(stderr, "%s failed: %s\n", what, oc_status_name(st));
        exit(1);
    }
}

static inline void *dev_alloc(size_t n)
{
    void *p = NULL;
    dev_mem_require(oc_memory_alloc(g_gpu, OC_MEMORY_DEVICE, n, &p), "device alloc");
    return p;
}

static inline void dev_free(void *p, size_t n)
{
    oc_memory_free(g_gpu, OC_MEMORY_DEVICE, p, n);
}

/* Copies n bytes either way and waits for the copy. */
static inline void copy(void *dst, const void *src, size_t n)
{
    if (n == 0)
        return;
    dev_mem_require(oc_memory_copy(g_gpu, dst, src, n), "copy");
    dev_mem_require(oc_context_synchronize(g_gpu), "synchronize");
}

/* A device buffer of n bytes holding p's; p NULL: an output, left
 * unwritten. */
static inline void *to_device(const void *p, size_t n)
{
    void *d = dev_alloc(n);
    if (p)
        copy(d, p, n);
    return d;
}

#endif /* OC_DEV_MEM_H */
