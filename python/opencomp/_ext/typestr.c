/*
 * typestr.c - array-protocol type strings ("|u1", "<f4", ...), the dtype
 * language shared by __array_interface__, __cuda_array_interface__ and
 * nvCOMP's data_type arguments, and their mapping to struct-module formats
 * (buffer protocol).  opencomp treats data as bytes; types only shape the
 * Arrays it returns.
 */
#include "oc_py.h"

#include <string.h>

int oc_py_typestr_parse(const char *ts, char *kind, Py_ssize_t *itemsize)
{
    const char *p = ts;
    if (*p == '<' || *p == '>' || *p == '|' || *p == '=')
        p++;
    if (!strchr("biufcmMOSUV", *p) || *p == '\0')
        return -1;
    char k = *p++;
    if (*p < '1' || *p > '9')
        return -1;
    long n = 0;
    while (*p >= '0' && *p <= '9') {
        n = n * 10 + (*p - '0');
        if (n > 1 << 20)
            return -1;
        p++;
    }
    if (*p != '\0')
        return -1;
    *kind = k;
    *itemsize = (Py_ssize_t)n;
    return 0;
}

/* Canonical form: byte order '|' for one-byte items, '<' for little-endian
 * multi-byte items (the host order of every platform opencomp targets). */
static int canonical(const char *in, char *buf, size_t cap)
{
    char kind;
    Py_ssize_t size;
    if (oc_py_typestr_parse(in, &kind, &size) != 0)
        return -1;
    char order = in[0] == '>' ? '>' : (size == 1 || kind == 'S' || kind == 'V' || kind == 'b') ? '|' : '<';
    int n = PyOS_snprintf(buf, cap, "%c%c%zd", order, kind, size);
    return (n > 0 && (size_t)n < cap) ? 0 : -1;
}

int oc_py_typestr_from_object(PyObject *obj, char *buf, size_t cap)
{
    PyObject *s = NULL;
    if (obj == NULL || obj == Py_None) {
        buf[0] = '\0';
        return 0;
    }
    if (PyUnicode_Check(obj)) {
        s = Py_NewRef(obj);
    } else if (PyObject_HasAttrString(obj, "str")) {
        /* numpy.dtype, or numpy scalar types via numpy.dtype(...) below */
        s = PyObject_GetAttrString(obj, "str");
        if (s && !PyUnicode_Check(s))
            Py_CLEAR(s);
        if (!s)
            PyErr_Clear();
    }
    if (!s && PyType_Check(obj)) {
        PyObject *np = PyImport_ImportModule("numpy");
        if (np) {
            PyObject *dt = PyObject_CallMethod(np, "dtype", "O", obj);
            Py_DECREF(np);
            if (dt) {
                s = PyObject_GetAttrString(dt, "str");
                Py_DECREF(dt);
            }
        }
        if (!s)
            PyErr_Clear();
    }
    if (!s) {
        PyErr_Format(PyExc_TypeError,
                     "data_type must be an array-protocol type string such as '<f4', not %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    const char *c = PyUnicode_AsUTF8(s);
    if (!c) {
        Py_DECREF(s);
        return -1;
    }
    if (c[0] == '\0') {
        buf[0] = '\0';
        Py_DECREF(s);
        return 0;
    }
    if (canonical(c, buf, cap) != 0) {
        PyErr_Format(PyExc_ValueError,
                     "data_type %R is not an array-protocol type string (such as '|u1', '<f4')", s);
        Py_DECREF(s);
        return -1;
    }
    Py_DECREF(s);
    return 0;
}

/* Little-endian types get native format characters (every host opencomp
 * targets is little-endian), which memoryview and numpy handle fully. */
const char *oc_py_typestr_format(const char *ts)
{
    char kind;
    Py_ssize_t n;
    if (oc_py_typestr_parse(ts, &kind, &n) != 0)
        return NULL;
    int big = ts[0] == '>';
    switch (kind) {
    case 'b':
        return n == 1 ? "?" : NULL;
    case 'i':
        switch (n) {
        case 1:
            return "b";
        case 2:
            return big ? ">h" : "h";
        case 4:
            return big ? ">i" : "i";
        case 8:
            return big ? ">q" : "q";
        }
        return NULL;
    case 'u':
        switch (n) {
        case 1:
            return "B";
        case 2:
            return big ? ">H" : "H";
        case 4:
            return big ? ">I" : "I";
        case 8:
            return big ? ">Q" : "Q";
        }
        return NULL;
    case 'f':
        switch (n) {
        case 2:
            return big ? ">e" : "e";
        case 4:
            return big ? ">f" : "f";
        case 8:
            return big ? ">d" : "d";
        }
        return NULL;
    case 'c':
        switch (n) {
        case 8:
            return big ? ">Zf" : "Zf";
        case 16:
            return big ? ">Zd" : "Zd";
        }
        return NULL;
    }
    return NULL;
}

int oc_py_format_typestr(const char *fmt, Py_ssize_t itemsize, char *buf, size_t cap)
{
    char order = '<';
    if (fmt == NULL)
        fmt = "B";
    if (*fmt == '<' || *fmt == '=' || *fmt == '@') {
        fmt++;
    } else if (*fmt == '>' || *fmt == '!') {
        order = '>';
        fmt++;
    }
    char kind;
    if (fmt[0] == '\0' || fmt[1] != '\0') {
        /* complex ("Zf"), structured or repeated formats: opaque bytes */
        kind = (fmt[0] == 'Z' && fmt[1] != '\0' && fmt[2] == '\0') ? 'c' : 'V';
    } else {
        switch (fmt[0]) {
        case '?':
            kind = 'b';
            break;
        case 'b':
        case 'h':
        case 'i':
        case 'l':
        case 'q':
        case 'n':
            kind = 'i';
            break;
        case 'B':
        case 'H':
        case 'I':
        case 'L':
        case 'Q':
        case 'N':
            kind = 'u';
            break;
        case 'e':
        case 'f':
        case 'd':
            kind = 'f';
            break;
        case 'c':
        case 's':
            kind = 'S';
            break;
        default:
            kind = 'V';
            break;
        }
    }
    if (itemsize == 1 || kind == 'V' || kind == 'S' || kind == 'b')
        order = '|';
    int n = PyOS_snprintf(buf, cap, "%c%c%zd", order, kind, itemsize);
    return (n > 0 && (size_t)n < cap) ? 0 : -1;
}
