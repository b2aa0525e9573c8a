/*
 * typestr.c - array-protocol type strings ("|u1", "<f4", ...), the dtype
 * language shared by __array_interface__, __cuda_array_interface__ and
 * nvCOMP's data_type arguments, and their mapping to struct-module formats
 * (buffer protocol).  opencomp treats data as bytes; types only shape the
 * Arrays it returns.
 */
#include "oc_py.h"

#include <string.h>

/* The item sizes numpy defines for a kind (x86-64 and aarch64 Linux: long
 * double is 16 bytes there, as numpy's float128/complex256). */
static int size_defined(char kind, long n)
{
    switch (kind) {
    case 'b':
        return n == 1;
    case 'i':
    case 'u':
        return n == 1 || n == 2 || n == 4 || n == 8;
    case 'f':
        return n == 2 || n == 4 || n == 8 || (n == (long)sizeof(long double) && n > 8);
    case 'c':
        return n == 8 || n == 16 || (n == 2 * (long)sizeof(long double) && n > 16);
    case 'm':
    case 'M':
    case 'O':
        return n == 8;
    default: /* 'S', 'U', 'V': any count */
        return 1;
    }
}

int oc_py_typestr_parse(const char *ts, char *kind, Py_ssize_t *itemsize)
{
    const char *p = ts;
    if (*p == '<' || *p == '>' || *p == '|' || *p == '=')
        p++;
    if (*p == 'O' && (p[1] == '\0' || (p[1] == '8' && p[2] == '\0')))
        return OC_PY_TS_OBJECT; /* numpy writes '|O'; the protocol '|O8' */
    if (*p == '\0' || !strchr("biufcmMSUV", *p))
        return OC_PY_TS_BAD;
    char k = *p++;
    if (*p < '1' || *p > '9')
        return OC_PY_TS_BAD;
    long n = 0;
    while (*p >= '0' && *p <= '9') {
        n = n * 10 + (*p - '0');
        if (n > 1 << 20)
            return OC_PY_TS_BAD;
        p++;
    }
    if (*p != '\0' || !size_defined(k, n))
        return OC_PY_TS_BAD;
    *kind = k;
    /* 'U' counts UCS-4 characters: '<U3' is 12 bytes */
    *itemsize = (Py_ssize_t)(k == 'U' ? 4 * n : n);
    return 0;
}

int oc_py_typestr_check(const char *ts, const char *what, char *kind, Py_ssize_t *itemsize)
{
    char k;
    Py_ssize_t n;
    int rc = oc_py_typestr_parse(ts, &k, &n);
    if (rc == OC_PY_TS_OBJECT) {
        PyErr_Format(PyExc_TypeError,
                     "%s: object arrays are not supported (their items are pointers to Python objects, "
                     "not data)",
                     what);
        return -1;
    }
    if (rc != 0) {
        PyErr_Format(PyExc_ValueError,
                     "%s: %s is not an array-protocol type string numpy defines (such as '|u1', '<f4')", what,
                     ts);
        return -1;
    }
    if (kind)
        *kind = k;
    if (itemsize)
        *itemsize = n;
    return 0;
}

/* Canonical form: byte order '|' for one-byte items, '<' for little-endian
 * multi-byte items (the host order of every platform opencomp targets).
 * Raises (TypeError for objects, ValueError otherwise) and returns -1 if `in`
 * is not a type string numpy defines. */
static int canonical(const char *in, char *buf, size_t cap)
{
    char kind;
    Py_ssize_t size;
    if (oc_py_typestr_check(in, "data_type", &kind, &size) != 0)
        return -1;
    char order = in[0] == '>' ? '>' : (size == 1 || kind == 'S' || kind == 'V' || kind == 'b') ? '|' : '<';
    Py_ssize_t count = kind == 'U' ? size / 4 : size;
    int n = PyOS_snprintf(buf, cap, "%c%c%zd", order, kind, count);
    if (n > 0 && (size_t)n < cap)
        return 0;
    PyErr_Format(PyExc_ValueError, "data_type %s is too long", in);
    return -1;
}

/* A numpy dtype that a type string cannot carry: objects (TypeError: pointers,
 * not data), fields or a sub-array shape (TypeError: the result would lose
 * them).  0 if obj is none of these or not a dtype. */
static int reject_structured(PyObject *obj)
{
    static const char *const attrs[] = {"hasobject", "fields", "subdtype"};
    for (int i = 0; i < 3; i++) {
        PyObject *a = PyObject_GetAttrString(obj, attrs[i]);
        if (!a) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError))
                return -1;
            PyErr_Clear();
            continue;
        }
        int bad = i == 0 ? PyObject_IsTrue(a) : a != Py_None;
        Py_DECREF(a);
        if (bad < 0)
            return -1;
        if (bad) {
            PyErr_Format(PyExc_TypeError,
                         i == 0
                             ? "data_type %R holds Python objects: object arrays are not supported"
                             : "data_type %R has fields or a sub-array shape, which a decoded Array cannot "
                               "carry; decode to bytes and .view() the result",
                         obj);
            return -1;
        }
    }
    return 0;
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
        if (!PyType_Check(obj) && reject_structured(obj) != 0)
            return -1;
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
                if (reject_structured(dt) != 0) {
                    Py_DECREF(dt);
                    return -1;
                }
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
    int rc = canonical(c, buf, cap);
    Py_DECREF(s);
    return rc;
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

int oc_py_format_has_object(const char *fmt)
{
    if (fmt == NULL)
        return 0;
    for (const char *p = fmt; *p; p++) {
        if (*p == ':') {
            /* a field name ":name:" may contain any letter: skip it */
            const char *end = strchr(p + 1, ':');
            if (!end)
                return 0;
            p = end;
        } else if (*p == 'O') {
            return 1;
        }
    }
    return 0;
}
