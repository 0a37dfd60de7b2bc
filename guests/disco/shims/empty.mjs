// An empty module standing for a native package the DISCO guest does not
// need (isomorphic-wrtc, @tensorflow/tfjs-node, onnxruntime-node).
export default {};
