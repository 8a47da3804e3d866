# Writes Natural Earth 1:50m admin-0 countries as GeoJSON (one Polygon feature per outer ring), for
# scripts/gen-default-basemap.py. Source: the Debian package r-cran-rnaturalearthdata (CC0; the data
# is Natural Earth's, public domain), which holds `countries50` as an sp SpatialPolygonsDataFrame.
# No network: apt-get gives both the data and R.
#
#   apt-get download r-cran-rnaturalearthdata && dpkg-deb -x r-cran-rnaturalearthdata_*.deb /tmp/rne
#   apt-get install --no-install-recommends r-base-core r-cran-sp
#   Rscript scripts/extract-ne50m.R /tmp/rne/usr/lib/R/site-library/rnaturalearthdata/data/Rdata /tmp/countries50.geojson
#
# Holes (11 rings: the outline of an enclave such as Lesotho, drawn anyway as its own country) are
# dropped: both sides are land.
suppressMessages(library(sp))
e <- new.env()
invisible(lazyLoad(commandArgs(TRUE)[1], envir = e))
c50 <- get("countries50", envir = e)
out <- file(commandArgs(TRUE)[2], "w")
cat('{"type":"FeatureCollection","features":[\n', file = out)
first <- TRUE
holes <- 0; verts <- 0
for (i in seq_along(c50@polygons)) {
  ps <- c50@polygons[[i]]@Polygons
  for (p in ps) {
    if (p@hole) { holes <- holes + 1; next }
    xy <- p@coords
    verts <- verts + nrow(xy)
    ring <- paste0("[", sprintf("%.6f", xy[,1]), ",", sprintf("%.6f", xy[,2]), "]", collapse = ",")
    if (!first) cat(",\n", file = out)
    first <- FALSE
    cat('{"type":"Feature","properties":{"name":"', gsub('"', '', as.character(c50@data$name[i])), '"},"geometry":{"type":"Polygon","coordinates":[[', ring, ']]}}', sep = "", file = out)
  }
}
cat("\n]}\n", file = out)
close(out)
cat("holes dropped:", holes, "vertices:", verts, "\n")
