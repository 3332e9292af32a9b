// conv2d: 2D convolution of a width x height float image with an FW x FW
// filter held in constant memory (d_filter, set from the launch spec's
// [[constant]]), zero padding at the borders: the 2D convolution experiment of
// seed 002 (Jeshani & Moreno Maza), one thread per output pixel.
//
// out[y][x] = sum_{j<FW} sum_{i<FW} d_filter[j*FW + i] * in[y+j-R][x+i-R],
// R = FW/2, terms outside the image skipped; j outer, i inner, ascending.
//
// Check: a CPU convolution in the same order, within 1e-5 relative.
#ifndef FW
#define FW 5
#endif
#define R (FW / 2)

__constant__ float d_filter[FW * FW];

extern "C" __global__ void conv2d(const float *in, float *out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) {
        return;
    }
    float acc = 0.0f;
    for (int j = 0; j < FW; ++j) {
        int iy = y + j - R;
        if (iy < 0 || iy >= height) {
            continue;
        }
        for (int i = 0; i < FW; ++i) {
            int ix = x + i - R;
            if (ix >= 0 && ix < width) {
                acc += d_filter[j * FW + i] * in[iy * width + ix];
            }
        }
    }
    out[y * width + x] = acc;
}
