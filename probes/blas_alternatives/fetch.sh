#!/usr/bin/env bash
# Gathers the BLAS candidates for sgemm_probe into DEST (default carry/blas, an ignored
# folder), as one xz archive of plain .so files plus a prebuilt probe, small enough to
# carry to a machine without internet:
#   openblas-debian/  Debian's libopenblas0-pthread as installed here (0.3.21) + libgfortran, libquadmath
#   openblas-pypi/    the newest scipy-openblas32 wheel for cp312 manylinux x86_64 (symbols prefixed scipy_)
#   blis-debian/      Debian's libblis4-pthread (libblis.so.4 has a CBLAS layer)
#   onednn-debian/    Debian's libdnnl2 (dnnl_sgemm) + libOpenCL.so.1 (ocl-icd), libgomp.so.1
#   fallback/         libstdc++.so.6, libgcc_s.so.1: only put on the path where the host's are older
# Needs: apt-get (download only, no install), python3 -m pip, dpkg-deb, g++, xz.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dest="${1:-$root/carry/blas}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$dest" "$work/stage"/{openblas-debian,openblas-pypi,blis-debian,onednn-debian,fallback}
stage="$work/stage"
multiarch=/usr/lib/x86_64-linux-gnu

# Debian's OpenBLAS as installed (the pthread variant hdbench links).
openblas="$(readlink -f "$multiarch/openblas-pthread/libopenblas.so.0")"
[[ -f "$openblas" ]] || { echo "fetch.sh: no $multiarch/openblas-pthread/libopenblas.so.0 (apt-get install libopenblas0-pthread)" >&2; exit 1; }
cp "$openblas" "$stage/openblas-debian/libopenblas.so.0"
for dep in libgfortran.so.5 libquadmath.so.0; do cp -L "$multiarch/$dep" "$stage/openblas-debian/"; done
echo "openblas-debian: $(dpkg-query -W -f='${Package} ${Version}' libopenblas0-pthread 2>/dev/null || basename "$openblas")" >> "$stage/VERSIONS"

# Debian packages, downloaded (not installed) and unpacked.
(cd "$work" && apt-get download libblis4-pthread libdnnl2 ocl-icd-libopencl1 >/dev/null 2>&1) ||
  { echo "fetch.sh: apt-get download failed (run apt-get update first?)" >&2; exit 1; }
for deb in "$work"/*.deb; do
  dpkg-deb -x "$deb" "$work/x"
  echo "$(basename "$deb")" >> "$stage/VERSIONS"
done
cp -L "$work/x$multiarch/blis-pthread/libblis.so.4" "$stage/blis-debian/"
cp -L "$work/x$multiarch/libdnnl.so.2" "$stage/onednn-debian/"
cp -L "$work/x$multiarch/libOpenCL.so.1" "$stage/onednn-debian/"
cp -L "$multiarch/libgomp.so.1" "$stage/onednn-debian/"
cp -L "$multiarch/libstdc++.so.6" "$multiarch/libgcc_s.so.1" "$stage/fallback/" 2>/dev/null ||
  cp -L /lib/x86_64-linux-gnu/libstdc++.so.6 /lib/x86_64-linux-gnu/libgcc_s.so.1 "$stage/fallback/"

# The newest scipy-openblas32 wheel a CPython 3.12 manylinux x86_64 machine would get.
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  scipy-openblas32 -d "$work/wheel"
wheel="$(ls "$work"/wheel/scipy_openblas32-*.whl | head -1)"
python3 - "$wheel" "$stage/openblas-pypi" <<'EOF'
import sys, zipfile, os
with zipfile.ZipFile(sys.argv[1]) as z:
    libs = [n for n in z.namelist() if n.endswith(".so") and "/lib/" in n]
    for n in libs:
        with open(os.path.join(sys.argv[2], os.path.basename(n)), "wb") as out:
            out.write(z.read(n))
    print("openblas-pypi:", os.path.basename(sys.argv[1]), "->", [os.path.basename(n) for n in libs])
EOF
echo "openblas-pypi: $(basename "$wheel")" >> "$stage/VERSIONS"

# A prebuilt probe for a machine without a compiler: libstdc++ and libgcc linked in,
# so it needs only glibc (the same as hdbench's bundle).
g++ -O2 -std=c++20 -pthread -static-libstdc++ -static-libgcc -o "$stage/sgemm_probe" "$here/sgemm_probe.cpp" -ldl

# Direct dependencies: everything outside glibc must be in the candidate's own folder.
for so in "$stage"/*/*.so*; do
  missing="$(LD_LIBRARY_PATH="$(dirname "$so")" ldd "$so" | grep -E 'not found' || true)"
  [[ -z "$missing" ]] || { echo "fetch.sh: $so misses: $missing" >&2; exit 1; }
done

echo "Uncompressed:" && du -sh "$stage"/* | sed "s|$stage/||"
rm -f "$dest/candidates.tar.xz"
tar -C "$stage" -cf - . | xz -6 -T2 > "$dest/candidates.tar.xz"
echo "Carried: $(du -h "$dest/candidates.tar.xz" | cut -f1) $dest/candidates.tar.xz"
cat "$stage/VERSIONS"
