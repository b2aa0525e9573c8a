/*
 * status.c - names and messages of oc_status values.  The table is indexed
 * by the pinned numeric values of include/opencomp.h, so adding a status
 * means appending a row here too.
 */
#include "oc_internal.h"

static const struct {
    const char *name;
    const char *message;
} status_table[] = {
    {"OK", "success"},
    {"INVALID_ARGUMENT", "invalid argument"},
    {"UNSUPPORTED", "not supported by this build or engine"},
    {"CORRUPT", "input is not a valid stream of the expected format"},
    {"TRUNCATED", "input ends before the stream does"},
    {"OUTPUT_TOO_SMALL", "output buffer too small"},
    {"CHECKSUM_MISMATCH", "stored checksum does not match the data"},
    {"SIZE_MISMATCH", "decoded size differs from the recorded size"},
    {"CHUNK_TOO_LARGE", "chunk exceeds the size limit of the format or engine"},
    {"NEEDS_DICTIONARY", "stream needs a dictionary"},
    {"OUT_OF_MEMORY", "out of memory"},
    {"NO_DEVICE", "no usable CUDA device"},
    {"CUDA", "a CUDA runtime call failed"},
    {"SIZE_UNKNOWN", "decompressed size is not recorded in the stream"},
    {"INTERNAL", "internal error in opencomp"},
    {"IO", "reading or writing a file failed"},
    {"FORKED", "CUDA cannot be used in a process forked after CUDA was initialised (use spawn)"},
};

#define STATUS_COUNT (sizeof(status_table) / sizeof(status_table[0]))

const char *oc_status_name(oc_status status)
{
    if ((unsigned)status >= STATUS_COUNT)
        return "UNKNOWN";
    return status_table[status].name;
}

const char *oc_status_message(oc_status status)
{
    if ((unsigned)status >= STATUS_COUNT)
        return "unknown status";
    return status_table[status].message;
}
