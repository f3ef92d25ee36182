// Pinocchio (C++) per-call times of CRBA, RNEA `rnea(q, v, a)` and ABA `aba(q, v, τ)` on URDF
// robots, cycling through the 64 states of benches/src/bin/tree_timing.rs (the same formula),
// timed as that bin times Contour: the fastest of 41 batches of at least 1 ms each.
// `crba_us` is Pinocchio's CRBA as its users call it (LOCAL convention, upper triangle only);
// `crba_full_us` adds the copy of the upper triangle into the lower one, so that it fills
// both triangles as Contour's CRBA does (the like-for-like column). Pinocchio is used as its
// competent C++ users write it: one `Data`, no input checks. Not run in CI;
// `benches/peers/pinocchio_timing.sh` builds it against the `pin` wheel and runs it beside
// `tree_timing` in one sitting.
// `pinocchio_timing --calls=N --only=crba|crba_full|rnea|aba name=file.urdf ...` times nothing:
// it makes exactly N calls of one algorithm per robot (the same states), for an instruction
// count under `valgrind --tool=callgrind`, as `tree_timing --calls=N` does.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "pinocchio/algorithm/aba.hpp"
#include "pinocchio/algorithm/crba.hpp"
#include "pinocchio/algorithm/joint-configuration.hpp"
#include "pinocchio/algorithm/rnea.hpp"
#include "pinocchio/parsers/urdf.hpp"

template <class F>
double time_us(F f) {
  using clk = std::chrono::steady_clock;
  long iters = 1;
  for (;;) {
    auto t = clk::now();
    for (long i = 0; i < iters; ++i) f();
    if (std::chrono::duration<double>(clk::now() - t).count() > 1e-3) break;
    iters *= 2;
  }
  double best = 1e300;
  for (int b = 0; b < 41; ++b) {
    auto t = clk::now();
    for (long i = 0; i < iters; ++i) f();
    double us = std::chrono::duration<double>(clk::now() - t).count() * 1e6 / iters;
    if (us < best) best = us;
  }
  return best;
}

struct State {
  Eigen::VectorXd q, v, a, tau;
};

// State k of tree_timing.rs, one value per velocity coordinate; continuous joints
// (nq = 2) take (cos, sin) of the angle.
State state(const pinocchio::Model& model, int k) {
  State s;
  Eigen::VectorXd ang(model.nv);
  s.v.resize(model.nv);
  s.a.resize(model.nv);
  s.tau.resize(model.nv);
  for (int i = 0; i < model.nv; ++i) {
    ang[i] = std::sin(0.37 * k + 0.91 * i + 0.2);
    s.v[i] = 0.5 * std::cos(0.23 * k + 0.61 * i);
    s.a[i] = std::sin(0.53 * k - 0.29 * i);
    s.tau[i] = std::cos(0.17 * k + 0.43 * i);
  }
  s.q = pinocchio::neutral(model);
  for (size_t j = 1; j < model.joints.size(); ++j) {
    const auto& jm = model.joints[j];
    if (jm.nq() == 1) s.q[jm.idx_q()] = ang[jm.idx_v()];
    if (jm.nq() == 2 && jm.nv() == 1) {
      s.q[jm.idx_q()] = std::cos(ang[jm.idx_v()]);
      s.q[jm.idx_q() + 1] = std::sin(ang[jm.idx_v()]);
    }
  }
  return s;
}

int main(int argc, char** argv) {
  long calls = -1;
  std::string only = "crba";
  std::vector<std::string> robots;
  for (int r = 1; r < argc; ++r) {
    std::string arg = argv[r];
    if (arg.rfind("--calls=", 0) == 0) calls = std::stol(arg.substr(8));
    else if (arg.rfind("--only=", 0) == 0) only = arg.substr(7);
    else robots.push_back(arg);
  }
  if (calls < 0) std::printf("robot,nv,crba_us,crba_full_us,rnea_us,aba_us\n");
  for (const std::string& arg : robots) {
    auto eq = arg.find('=');
    std::string name = arg.substr(0, eq), path = arg.substr(eq + 1);
    pinocchio::Model model;
    pinocchio::urdf::buildModel(path, model);
    pinocchio::Data data(model);
    std::vector<State> states;
    for (int k = 0; k < 64; ++k) states.push_back(state(model, k));
    int k = 0;
    auto next = [&]() -> const State& {
      k = (k + 1) % 64;
      return states[k];
    };
    double sink = 0;
    if (calls >= 0) {
      for (long c = 0; c < calls; ++c) {
        const State& s = states[(c + 1) % 64];
        if (only == "crba") {
          pinocchio::crba(model, data, s.q);
          sink += data.M(0, 0);
        } else if (only == "crba_full") {
          pinocchio::crba(model, data, s.q);
          data.M.triangularView<Eigen::StrictlyLower>() = data.M.transpose().triangularView<Eigen::StrictlyLower>();
          sink += data.M(0, 0);
        } else if (only == "rnea") {
          pinocchio::rnea(model, data, s.q, s.v, s.a);
          sink += data.tau[0];
        } else if (only == "aba") {
          pinocchio::aba(model, data, s.q, s.v, s.tau);
          sink += data.ddq[0];
        }
      }
      if (sink == 12345.678) std::printf("%f\n", sink);
      continue;
    }
    double crba = time_us([&] {
      pinocchio::crba(model, data, next().q);
      sink += data.M(0, 0);
    });
    double crba_full = time_us([&] {
      pinocchio::crba(model, data, next().q);
      data.M.triangularView<Eigen::StrictlyLower>() = data.M.transpose().triangularView<Eigen::StrictlyLower>();
      sink += data.M(0, 0);
    });
    double rnea = time_us([&] {
      const State& s = next();
      pinocchio::rnea(model, data, s.q, s.v, s.a);
      sink += data.tau[0];
    });
    double aba = time_us([&] {
      const State& s = next();
      pinocchio::aba(model, data, s.q, s.v, s.tau);
      sink += data.ddq[0];
    });
    std::printf("%s,%d,%.4f,%.4f,%.4f,%.4f\n", name.c_str(), (int)model.nv, crba, crba_full, rnea, aba);
    if (sink == 12345.678) std::printf("%f\n", sink);
  }
  return 0;
}
