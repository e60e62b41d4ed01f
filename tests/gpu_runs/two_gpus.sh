# Sourced by the two-GPU session scripts (session8.sh, session9.sh): install the carried wheels
# once, then `pin G CMD...` runs CMD on GPU G and its half of the cores.
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site SITE_READY=1
fi
half=$(( $(nproc) / 2 ))
pin() {  # pin GPU-index CMD...: run CMD on that GPU and its half of the cores
  local g=$1; shift
  local cores="$(( g * half ))-$(( g * half + half - 1 ))"
  if command -v taskset > /dev/null; then CUDA_VISIBLE_DEVICES=$g taskset -c "$cores" "$@"
  else CUDA_VISIBLE_DEVICES=$g "$@"; fi
}
