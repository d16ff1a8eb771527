"""kiln from Python: a training process reads kiln's compile cache.

    import kiln
    cache = kiln.Cache()                        # ~/.cache/kiln, kiln.conf's remotes
    step = cache.load("step.hlo")               # from the cache, else compiled and stored
    loss, *weights = step(ids, labels, lr, *weights)

Arrays in and out are NumPy arrays of the parameters' exact types and
shapes (Python numbers are taken for scalars); bf16 travels as NumPy's
uint16 (the bf16 bits), as do the other types NumPy lacks (the 8-bit
floats as uint8). Errors are kiln.Error, with kiln's message.

The module calls libkiln's C API (include/kiln-c/Kiln.h) through ctypes:
it runs on any Python 3 with NumPy, with nothing compiled against one.
"""

import ctypes
import json
import os
import re
import subprocess
import tempfile

import numpy as np

from . import _config

__all__ = ["Cache", "Executable", "Error", "precompile", "version"]


class Error(Exception):
    """A failure that kiln reported: its message says what and where."""


def _library_path(relative):
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, relative))


_lib = ctypes.CDLL(_library_path(_config.LIBRARY))

_Status = ctypes.c_void_p
_Strings = ctypes.POINTER(ctypes.c_char_p)


class _Lookup(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("key", ctypes.c_char * 33),
                ("tier", ctypes.c_char * 256), ("reason", ctypes.c_char * 512)]


class _BufferType(ctypes.Structure):
    _fields_ = [("element_type", ctypes.c_char_p), ("rank", ctypes.c_size_t),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("bytes", ctypes.c_size_t)]


def _declare(name, result, *arguments):
    function = getattr(_lib, name)
    function.restype = result
    function.argtypes = list(arguments)
    return function


_version = _declare("kilnGetVersion", ctypes.c_char_p)
_status_message = _declare("kilnStatusGetMessage", ctypes.c_char_p, _Status)
_status_destroy = _declare("kilnStatusDestroy", None, _Status)
_cache_open = _declare("kilnCacheOpen", _Status, ctypes.c_char_p, _Strings,
                       ctypes.POINTER(ctypes.c_void_p))
_cache_destroy = _declare("kilnCacheDestroy", None, ctypes.c_void_p)
_cache_directory = _declare("kilnCacheGetDirectory", ctypes.c_char_p,
                            ctypes.c_void_p)
_cache_warnings = _declare("kilnCacheTakeWarnings", ctypes.c_char_p,
                           ctypes.c_void_p)
_cache_compiles = _declare("kilnCacheGetCompileCount", ctypes.c_uint64,
                           ctypes.c_void_p)
_cache_hits = _declare("kilnCacheGetHitCount", ctypes.c_uint64,
                       ctypes.c_void_p)
_cache_lookup = _declare("kilnCacheLookup", _Status, ctypes.c_void_p,
                         ctypes.c_char_p, _Strings, ctypes.POINTER(_Lookup))
_exe_load = _declare("kilnExecutableLoad", _Status, ctypes.c_void_p,
                     ctypes.c_char_p, _Strings,
                     ctypes.POINTER(ctypes.c_void_p))
_exe_load_text = _declare("kilnExecutableLoadText", _Status, ctypes.c_void_p,
                          ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                          _Strings, ctypes.POINTER(ctypes.c_void_p))
_exe_destroy = _declare("kilnExecutableDestroy", None, ctypes.c_void_p)
_exe_from_cache = _declare("kilnExecutableIsFromCache", ctypes.c_int,
                           ctypes.c_void_p)
_exe_key = _declare("kilnExecutableGetKey", ctypes.c_char_p, ctypes.c_void_p)
_exe_signature = _declare("kilnExecutableGetSignature", ctypes.c_char_p,
                          ctypes.c_void_p)
_exe_description = _declare("kilnExecutableGetDescription", ctypes.c_char_p,
                            ctypes.c_void_p)
_exe_parameters = _declare("kilnExecutableGetNumParameters", ctypes.c_size_t,
                           ctypes.c_void_p)
_exe_results = _declare("kilnExecutableGetNumResults", ctypes.c_size_t,
                        ctypes.c_void_p)
_exe_parameter = _declare("kilnExecutableGetParameter", _Status,
                          ctypes.c_void_p, ctypes.c_size_t,
                          ctypes.POINTER(_BufferType))
_exe_result = _declare("kilnExecutableGetResult", _Status, ctypes.c_void_p,
                       ctypes.c_size_t, ctypes.POINTER(_BufferType))
_exe_call = _declare("kilnExecutableCall", _Status, ctypes.c_void_p,
                     ctypes.POINTER(ctypes.c_void_p),
                     ctypes.POINTER(ctypes.c_void_p))
_exe_call_ranks = _declare("kilnExecutableCallRanks", _Status,
                           ctypes.c_void_p, ctypes.c_size_t,
                           ctypes.POINTER(ctypes.POINTER(ctypes.c_void_p)),
                           ctypes.POINTER(ctypes.POINTER(ctypes.c_void_p)))


def _check(status):
    if status:
        message = _status_message(status).decode(errors="replace")
        _status_destroy(status)
        raise Error(message)


def _strings(values):
    """A NULL-terminated char** of `values` (None: NULL)."""
    if values is None:
        return None
    encoded = [v.encode() for v in values] + [None]
    return (ctypes.c_char_p * len(encoded))(*encoded)


def version():
    """kiln's version and source revision (part of every cache key)."""
    return _version().decode()


# Element types as NumPy holds them; bf16 and the 8-bit floats as the
# unsigned integers of their width (their bits).
_DTYPES = {
    "f64": np.float64, "f32": np.float32, "f16": np.float16,
    "bf16": np.uint16, "i64": np.int64, "i32": np.int32, "i16": np.int16,
    "i8": np.int8, "ui64": np.uint64, "ui32": np.uint32, "ui16": np.uint16,
    "ui8": np.uint8, "i1": np.bool_, "complex<f32>": np.complex64,
    "complex<f64>": np.complex128,
}


def _dtype_of(element):
    if element in _DTYPES:
        return np.dtype(_DTYPES[element])
    if element.startswith("f8"):
        return np.dtype(np.uint8)
    raise Error("an element type NumPy cannot hold: " + element)


class _Buffer:
    def __init__(self, description):
        self.element_type = description.element_type.decode()
        self.shape = tuple(description.shape[i]
                           for i in range(description.rank))
        self.dtype = _dtype_of(self.element_type)
        self.bytes = description.bytes

    def __repr__(self):
        return "%s[%s]" % (self.element_type,
                           ",".join(str(d) for d in self.shape))


def _options(compile_options):
    return ["%s=%s" % (name.replace("_", "-"),
                       str(value).lower() if isinstance(value, bool)
                       else value)
            for name, value in sorted(compile_options.items())]


class Cache:
    """kiln's compile cache: `path` (None: the default, as the `kiln`
    command finds it) with its settings (kiln.conf, KILN_* variables), and
    `remote` (a URL or a list of them) replacing the configured remote
    tiers when given ([] for none)."""

    def __init__(self, path=None, remote=None):
        if isinstance(remote, str):
            remote = [remote]
        handle = ctypes.c_void_p()
        _check(_cache_open(os.fsencode(path) if path is not None else None,
                           _strings(remote), ctypes.byref(handle)))
        self._handle = handle

    def __del__(self):
        if getattr(self, "_handle", None):
            _cache_destroy(self._handle)
            self._handle = None

    @property
    def path(self):
        return _cache_directory(self._handle).decode()

    @property
    def compiles(self):
        """How many graphs this Cache compiled (misses it filled)."""
        return _cache_compiles(self._handle)

    @property
    def hits(self):
        """How many graphs this Cache loaded from the cache."""
        return _cache_hits(self._handle)

    def warnings(self):
        """The remote tiers' warnings since the last call, as lines."""
        return _cache_warnings(self._handle).decode().splitlines()

    def check(self, paths, **compile_options):
        """Per graph file: its key, and whether the cache holds it (and
        where), or why not; nothing is compiled. A graph that cannot be
        read or imported is a row of status "error" with kiln's message
        as its reason, and the others are still checked, as `kiln cache
        check` does; other errors (a bad option) raise kiln.Error."""
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        names = {0: "hit", 1: "miss", 2: "failed", 3: "untrusted",
                 4: "corrupt"}
        rows = []
        for path in paths:
            lookup = _Lookup()
            try:
                _check(_cache_lookup(self._handle, os.fsencode(path),
                                     _strings(_options(compile_options)),
                                     ctypes.byref(lookup)))
            except Error as error:
                # kiln's errors about a graph start with its file's name.
                if not str(error).startswith(os.fsdecode(path) + ":"):
                    raise
                rows.append({"path": os.fspath(path), "key": "",
                             "status": "error", "tier": "",
                             "reason": str(error)})
                continue
            rows.append({"path": os.fspath(path),
                         "key": lookup.key.decode(),
                         "status": names[lookup.status],
                         "tier": lookup.tier.decode(),
                         "reason": lookup.reason.decode()})
        return rows

    def load(self, graph, **compile_options):
        """The executable of the graph file `graph`: from the cache on a
        hit (verified; signed, where keys are trusted), else compiled and
        stored. `compile_options` are kiln's --option values
        (fold_constants=False is fold-constants=false)."""
        handle = ctypes.c_void_p()
        _check(_exe_load(self._handle, os.fsencode(graph),
                         _strings(_options(compile_options)),
                         ctypes.byref(handle)))
        return Executable(handle)


    def load_text(self, text, name="graph", **compile_options):
        """As load, for a graph given as text (HLO text, StableHLO); `name`
        names it in messages and in a stored entry."""
        data = text.encode() if isinstance(text, str) else bytes(text)
        handle = ctypes.c_void_p()
        _check(_exe_load_text(self._handle, data, len(data), name.encode(),
                              _strings(_options(compile_options)),
                              ctypes.byref(handle)))
        return Executable(handle)


class Executable:
    """A graph's compiled code, called on NumPy arrays."""

    def __init__(self, handle):
        self._handle = handle
        self.key = _exe_key(handle).decode()
        self.signature = _exe_signature(handle).decode()
        self.from_cache = bool(_exe_from_cache(handle))
        self.description = _exe_description(handle).decode()
        self.parameters = [self._describe(_exe_parameter, i)
                           for i in range(_exe_parameters(handle))]
        self.results = [self._describe(_exe_result, i)
                        for i in range(_exe_results(handle))]

    def _describe(self, function, index):
        description = _BufferType()
        _check(function(self._handle, index, ctypes.byref(description)))
        return _Buffer(description)

    def __del__(self):
        if getattr(self, "_handle", None):
            _exe_destroy(self._handle)
            self._handle = None

    def _arguments(self, arrays, rank=None):
        where = "" if rank is None else "rank %d: " % rank
        if len(arrays) != len(self.parameters):
            raise Error("%sthe graph takes %d parameters, %d given"
                        % (where, len(self.parameters), len(arrays)))
        checked = []
        for i, (array, parameter) in enumerate(zip(arrays, self.parameters)):
            if isinstance(array, (bool, int, float)) and not parameter.shape:
                array = self._scalar(array, parameter, where, i)
            array = np.asarray(array)
            if array.dtype != parameter.dtype or \
                    array.shape != parameter.shape:
                raise Error(
                    "%sparameter %d takes %s (NumPy %s%s), not %s%s"
                    % (where, i, parameter, parameter.dtype,
                       list(parameter.shape), array.dtype,
                       list(array.shape)))
            checked.append(np.ascontiguousarray(array))
        return checked

    @staticmethod
    def _scalar(value, parameter, where, index):
        """A Python number for a scalar parameter, where it converts
        without loss of kind: a bool for i1, an int that fits for
        integers, a number for the floats NumPy holds. bf16 and the 8-bit
        floats travel as their bits, which a number is not."""
        kind = parameter.dtype.kind
        ok = (isinstance(value, bool) and kind == "b") or \
            (not isinstance(value, bool) and isinstance(value, int) and
             kind in "iu" and
             np.iinfo(parameter.dtype).min <= value <=
             np.iinfo(parameter.dtype).max) or \
            (not isinstance(value, bool) and kind in "fc" and
             parameter.element_type in ("f16", "f32", "f64", "complex<f32>",
                                        "complex<f64>"))
        if not ok:
            raise Error("%sparameter %d takes %s (NumPy %s), not the Python "
                        "%s %r" % (where, index, parameter, parameter.dtype,
                                   type(value).__name__, value))
        return np.array(value, dtype=parameter.dtype)

    def _outputs(self):
        return [np.empty(result.shape, dtype=result.dtype)
                for result in self.results]

    @staticmethod
    def _pointers(arrays):
        return (ctypes.c_void_p * max(len(arrays), 1))(
            *[a.ctypes.data for a in arrays])

    def __call__(self, *arrays):
        """Runs the code on `arrays` (one per parameter); its results."""
        inputs = self._arguments(arrays)
        outputs = self._outputs()
        try:
            _check(_exe_call(self._handle, self._pointers(inputs),
                             self._pointers(outputs)))
        except Error as error:
            # kiln's runtime names the command's flag; here it is run_ranks.
            raise Error(re.sub(r"run it with --ranks (\d+)",
                               r"run it on \1 ranks (run_ranks with \1 "
                               r"lists of arrays)", str(error))) from None
        return outputs

    def run_ranks(self, arrays_per_rank):
        """Runs the code as len(arrays_per_rank) participants, one thread
        each, whose collectives meet; each rank's results."""
        ranks = len(arrays_per_rank)
        inputs = [self._arguments(a, r) for r, a in enumerate(arrays_per_rank)]
        outputs = [self._outputs() for _ in range(ranks)]
        input_pointers = [self._pointers(i) for i in inputs]
        output_pointers = [self._pointers(o) for o in outputs]
        Pointers = ctypes.POINTER(ctypes.c_void_p)
        _check(_exe_call_ranks(
            self._handle, ranks,
            (Pointers * ranks)(*[ctypes.cast(p, Pointers)
                                 for p in input_pointers]),
            (Pointers * ranks)(*[ctypes.cast(p, Pointers)
                                 for p in output_pointers])))
        return outputs


def precompile(paths, jobs=None, remote=None, cache=None, extra_args=()):
    """`kiln precompile PATHS` (graph files or directories): each graph
    compiled once, in parallel worker processes, into the cache (`cache`:
    its directory, None: the default; `remote`: a URL or a list of them).
    Returns the report (what `--report` writes) as a dict; raises
    kiln.Error if the run could not start (usage, input)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if isinstance(remote, str):
        remote = [remote]
    with tempfile.TemporaryDirectory(prefix="kiln-report-") as where:
        report = os.path.join(where, "report.json")
        command = [_library_path(_config.KILN), "precompile", "--report",
                   report]
        if jobs is not None:
            command += ["-j", str(jobs)]
        for url in remote or []:
            command += ["--remote", url]
        if cache is not None:
            command += ["--cache-dir", os.fspath(cache)]
        command += list(extra_args) + [os.fspath(p) for p in paths]
        run = subprocess.run(command, capture_output=True, text=True)
        if not os.path.exists(report):
            raise Error(run.stderr.strip() or
                        "kiln precompile exited with status %d"
                        % run.returncode)
        with open(report) as f:
            result = json.load(f)
        result["exit_status"] = run.returncode
        return result
