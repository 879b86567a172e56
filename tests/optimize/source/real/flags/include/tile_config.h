#define TILE_WIDTH 16
