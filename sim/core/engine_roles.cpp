#include "core/engine_roles.h"

namespace nsim::sim::core {

std::string config_engine_name(isa::Engine engine) {
    switch (engine) {
        case isa::Engine::Pe: return "tensor";
        case isa::Engine::Act: return "scalar";
        case isa::Engine::Dve: return "vector";
        case isa::Engine::Pool: return "gpsimd";
        case isa::Engine::Sp: return "sync";
        case isa::Engine::Dma: break;
    }
    return "";
}

const config::EngineSpec* find_engine(const config::NeuronCoreSpec& core, isa::Engine engine) {
    const std::string name = config_engine_name(engine);
    for (const config::EngineSpec& spec : core.engines)
        if (spec.name == name) return &spec;
    return nullptr;
}

}  // namespace nsim::sim::core
