// cxxload.cc: C++ names for the bench's C++ corpus: templates in an
// anonymous namespace, std::function, lambdas, std::map and std::sort,
// so frames carry long demangled names as real C++ services do.
// Not part of the product.
//
// Build: g++ -O2 -fno-omit-frame-pointer -o cxxload bench/loads/cxxload.cc
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace shop
{
namespace
{

template <typename T, int N> struct Box {
	T v[N];
	__attribute__((noinline)) T spin(T x)
	{
		for (int i = 0; i < 2000; i++)
			x = x * T(1.0000001) + v[i % N];
		return x;
	}
};

template <typename K, typename V> class Index
{
      public:
	__attribute__((noinline)) void add(const K &k, V v)
	{
		m_[k] += v;
	}
	__attribute__((noinline)) V sum() const
	{
		V s{};
		for (const auto &kv : m_)
			s += kv.second;
		return s;
	}

      private:
	std::map<K, V> m_;
};

__attribute__((noinline)) std::vector<std::string> make_keys(uint64_t seed, int n)
{
	std::vector<std::string> keys;
	for (int i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ULL + 1;
		keys.push_back("sku-" + std::to_string(seed % 100000));
	}
	std::sort(keys.begin(), keys.end());
	return keys;
}

} // namespace

struct Pipeline {
	std::vector<std::function<double(double)>> stages;
	__attribute__((noinline)) double run(double x) const
	{
		for (const auto &f : stages)
			x = f(x);
		return x;
	}
};

} // namespace shop

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? std::atof(argv[1]) : 10;
	auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
	shop::Box<double, 24> box{};
	shop::Box<float, 7> small{};
	shop::Index<std::string, long> index;
	shop::Pipeline p;
	p.stages.push_back([&](double x) { return box.spin(x); });
	p.stages.push_back([&](double x) { return double(small.spin(float(x))); });
	p.stages.push_back([](double x) { return x * 0.5 + 1; });
	volatile double sink = 0;
	uint64_t seed = 42;
	while (std::chrono::steady_clock::now() < end) {
		sink = sink + p.run(seed % 1000);
		for (const auto &k : shop::make_keys(seed++, 200))
			index.add(k, 1);
		sink = sink + double(index.sum());
	}
	return 0;
}
