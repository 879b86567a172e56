// A library header that does not parse here (its dependency is missing).
#include <not_installed/traits.h>
namespace lib {
template <class T, class = typename not_installed::enable<T>::type>
__device__ T scale(T v) { return v * 2; }
}
