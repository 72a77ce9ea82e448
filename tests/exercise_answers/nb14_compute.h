// The worked solution of notebook 14: SiluGradKernel's Compute and the methods it calls, as a
// learner writes them into a scratch copy of kernel/silu_grad in place of the empty Compute
// (tests/exercise_answers/nb14.py plants it; never run in the learner's flow).
    __aicore__ inline void Compute(uint32_t length)
    {
        // CompareScalar compares whole 256-byte repeats: every instruction runs on the count
        // rounded up to 64 floats (the tile's buffers hold them; the extra lanes are never
        // copied out).
        const uint32_t count = (length + 63) / 64 * 64;
        LocalTensor<T> grad = gradQueue_.template DeQue<T>();
        LocalTensor<T> x = xQueue_.template DeQue<T>();
        LocalTensor<T> out = outQueue_.template AllocTensor<T>();
        LocalTensor<float> d = temp_[0].template Get<float>();
        if constexpr (std::is_same_v<T, float>) {
            Derivative(d, x, count);
            Mul(out, d, grad, count);
        } else {
            LocalTensor<float> wide = temp_[1].template Get<float>();
            Cast(wide, x, RoundMode::CAST_NONE, count);
            Derivative(d, wide, count);
            Cast(wide, grad, RoundMode::CAST_NONE, count);
            Mul(d, d, wide, count);
            Cast(out, d, RoundMode::CAST_RINT, count);
        }
        outQueue_.EnQue(out);
        gradQueue_.FreeTensor(grad);
        xQueue_.FreeTensor(x);
    }

    // d = dsilu/dx with one exponential e = exp(-|x|) <= 1, so that nothing overflows:
    //   x >= 0:  d = 1 + e (x - 1 - e) / (1 + e)^2    (1 carries the value; the quotient is small)
    //   x <  0:  d =     e (x + 1 + e) / (1 + e)^2
    // Below x = -64, e = exp(x / 2) and the last Mul applies it a second time: exp(x) would be
    // subnormal below -87.3, where the vector unit may flush it, while d is normal down to -91.8.
    // +-inf are clamped to +-2^20 where they meet e = 0 (inf * 0 is NaN). Near the zero of d the
    // terms cancel: RootWindow takes over.
    __aicore__ inline void Derivative(const LocalTensor<float>& d, const LocalTensor<float>& x, uint32_t count)
    {
        constexpr float kFarLimit = -64.0f;
        constexpr float kClamp = 1048576.0f;
        LocalTensor<float> e = temp_[2].template Get<float>();
        LocalTensor<float> t = temp_[3].template Get<float>();
        LocalTensor<float> w = temp_[4].template Get<float>();
        LocalTensor<float> v = temp_[5].template Get<float>();
        LocalTensor<uint8_t> far = mask_[0].template Get<uint8_t>();
        LocalTensor<uint8_t> negative = mask_[1].template Get<uint8_t>();
        Abs(e, x, count);
        Muls(e, e, -1.0f, count);
        CompareScalar(far, x, kFarLimit, CMPMODE::LT, count);
        Muls(t, e, 0.5f, count);
        Select(e, far, t, e, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);
        Exp(e, e, count);
        Mins(w, x, kClamp, count);
        Maxs(w, w, -kClamp, count);
        CompareScalar(negative, x, 0.0f, CMPMODE::LT, count);
        Adds(t, e, 1.0f, count);
        Adds(v, w, 1.0f, count);
        Add(v, v, e, count);
        Adds(w, w, -1.0f, count);
        Sub(w, w, e, count);
        Select(w, negative, v, w, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);
        Mul(w, w, e, count);
        Mul(t, t, t, count);
        Div(w, w, t, count);
        Adds(v, w, 1.0f, count);
        Select(d, negative, w, v, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);
        Select(v, far, e, 1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, count);
        Mul(d, d, v, count);
        RootWindow(d, x, e, t, far, count);
    }

    // Within kHalfWidth of the zero x0 = -1 - W(1/e) of d, the Taylor polynomial
    // d = u (c1 + u (c2 + c3 u)), u = (x - x0hi) - x0lo: x - x0hi is exact (Sterbenz), so d keeps
    // its relative accuracy as it passes through zero.
    __aicore__ inline void RootWindow(const LocalTensor<float>& d, const LocalTensor<float>& x,
                                      const LocalTensor<float>& u, const LocalTensor<float>& p,
                                      const LocalTensor<uint8_t>& inside, uint32_t count)
    {
        constexpr float kRootHigh = -1.2784646f;
        constexpr float kRootLow = 1.29792825e-08f;
        constexpr float kC1 = 0.21781171f;
        constexpr float kC2 = 0.14664880f;
        constexpr float kC3 = 0.018874814f;
        constexpr float kHalfWidth = 0.02f;
        Adds(u, x, -kRootHigh, count);
        Adds(u, u, -kRootLow, count);
        Abs(p, u, count);
        CompareScalar(inside, p, kHalfWidth, CMPMODE::LT, count);
        Muls(p, u, kC3, count);
        Adds(p, p, kC2, count);
        Mul(p, p, u, count);
        Adds(p, p, kC1, count);
        Mul(p, p, u, count);
        Select(d, inside, p, d, SELMODE::VSEL_TENSOR_TENSOR_MODE, count);
    }
