import MapRenderCore
import MapRenderCairo

