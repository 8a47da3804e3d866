import CCairo
import MapRenderCore

