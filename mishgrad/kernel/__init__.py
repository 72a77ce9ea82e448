"""The AscendC kernel on the CPU twin (notebooks 04-07, 13): building, running and reading it.

- :mod:`~mishgrad.kernel.platforms`, :mod:`~mishgrad.kernel.tiling`: the chips' UB and cores,
  and the Python model of the C++ tiling;
- :mod:`~mishgrad.kernel.source`: the operator's folder (``kernel/mish_grad``) and the twin
  (``kernel/twin``), and excerpts of them; :mod:`~mishgrad.kernel.operators`: an operator as
  its folder plus a spec, MishGrad's the default;
- :mod:`~mishgrad.kernel.messages`: the language of the messages this layer and
  :mod:`mishgrad.aclnn` compose for a learner, a translator the book hands down;
- :mod:`~mishgrad.kernel.twin_build` builds an operator's twin library (with the stamp's
  :mod:`~mishgrad.kernel.identity` of MishGrad's sources),
  :mod:`~mishgrad.kernel.launcher` runs any operator's kernel entry on it and
  :mod:`~mishgrad.kernel.twin` MishGrad's, with its tiling (:mod:`~mishgrad.kernel.twin_abi`:
  the C ABI; :mod:`~mishgrad.kernel.plan_check`: a caller's plan, checked);
  :mod:`~mishgrad.kernel.scratch` is a learner's copy of the operator's folder, whose kernel
  :mod:`~mishgrad.kernel.isolation` runs in a worker process (:mod:`~mishgrad.kernel.worker`;
  :mod:`~mishgrad.kernel.shared_tensors`: the tensors it shares, between guard bytes);
- :mod:`~mishgrad.kernel.trace` reads the twin's trace of AscendC calls;
  :mod:`~mishgrad.kernel.ub_layout` maps a kernel's UB, :mod:`~mishgrad.kernel.pipeline` costs it;
- :mod:`~mishgrad.kernel.opsnn`, :mod:`~mishgrad.kernel.misuse`: the operator's folder as an
  ops-nn operator directory, and kernels that break the hardware's rules on purpose.

May import: :mod:`mishgrad.math`, :mod:`mishgrad.citations`, :mod:`mishgrad.paths`.
"""
