/* Float images for the Chernoff saddle search of exactdp.engine.largen (_Light.saddle):
 * K(t) = log E e^{tS}, K'(t), K''(t) of a sum of independent factors, in doubles.
 * Built by setup.py as the optional extension exactdp.engine._cfloat; the Python glue and
 * the numpy fallback are exactdp/engine/cfloat.py.  These numbers only *choose* the point
 * t of a Chernoff bound (any t > 0 gives a valid bound); the bound itself is an arb
 * evaluation (largen._Light.bound_at), so nothing here needs directed rounding.
 *
 * The factors come packed in one buffer of doubles:
 *     nf, then per factor: m (multiplicity), n (entries), wmax, wmin, w[0..n-1], p[0..n-1]
 * (exactdp.engine.cfloat.pack).  Each factor's exponents are shifted by the largest,
 * t wmax (t >= 0) or t wmin (t < 0), so that no term overflows.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

static PyObject *py_cumulants(PyObject *self, PyObject *args) {
    double t;
    Py_buffer buf;
    (void)self;
    if (!PyArg_ParseTuple(args, "dy*", &t, &buf))
        return NULL;
    const double *d = (const double *)buf.buf;
    Py_ssize_t len = buf.len / (Py_ssize_t)sizeof(double), pos = 1;
    double k0 = 0.0, k1 = 0.0, k2 = 0.0;
    int bad = len < 1;
    long nf = bad ? 0 : (long)d[0];
    for (long f = 0; f < nf && !bad; f++) {
        if (pos + 4 > len) { bad = 1; break; }
        double m = d[pos], wmx = d[pos + 2], wmn = d[pos + 3];
        long n = (long)d[pos + 1];
        pos += 4;
        if (n < 1 || pos + 2 * n > len) { bad = 1; break; }
        const double *w = d + pos, *p = d + pos + n;
        pos += 2 * n;
        double sh = t >= 0 ? t * wmx : t * wmn;
        double z = 0.0, s1 = 0.0, eb[256];
        for (long i = 0; i < n; i++) {
            double ep = exp(t * w[i] - sh) * p[i];
            if (i < 256) eb[i] = ep;
            z += ep;
            s1 += ep * w[i];
        }
        double mu = s1 / z, s2 = 0.0;
        for (long i = 0; i < n; i++) {
            double dd = w[i] - mu;
            s2 += (i < 256 ? eb[i] : exp(t * w[i] - sh) * p[i]) * dd * dd;
        }
        double var = s2 / z;
        k0 += m * (sh + log(z));
        k1 += m * mu;
        k2 += m * (var > 0.0 ? var : 0.0);
    }
    PyBuffer_Release(&buf);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "cumulants: malformed factor buffer");
        return NULL;
    }
    return Py_BuildValue("(ddd)", k0, k1, k2);
}

static PyMethodDef methods[] = {
    {"cumulants", py_cumulants, METH_VARARGS,
     "(K(t), K'(t), K''(t)) of the packed factors (see exactdp.engine.cfloat)."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_cfloat",
    "Float images for the Chernoff saddle search (see exactdp.engine.cfloat).", -1, methods};

PyMODINIT_FUNC PyInit__cfloat(void) { return PyModule_Create(&moddef); }
